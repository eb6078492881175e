-- Headless driver: run the case's "▶ Run eval" lens against the fake model, rename the case in the buffer and
-- save, then look at what the editor keeps of its run (issue 27 #7): the verdict lens, :EvalensShow and the
-- "Show run" lens. Writes what it saw to $EVALENS_NVIM_OUT; the pytest wrapper asserts, and runs
-- `evalens eval --stale --dry-run` on the saved package afterwards.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local bufnr = vim.api.nvim_get_current_buf()
local new_name = os.getenv('EVALENS_NEW_NAME')
local timeout = tonumber(os.getenv('EVALENS_NVIM_TIMEOUT') or '120') * 1000
local out = { steps = {}, notes = {} }
local finish, fail = common.finisher(out)

local function verdict()
  return common.title(bufnr, { '✓', '✗ FAIL', '⚠' })
end

-- several lenses share the `name:` line, so codelens.run() asks vim.ui.select: choose like a user would
common.pick_lens('▶ Run eval')
common.record_notes(out.notes)

if not common.wait_attached(bufnr) then
  return fail('the evalens client did not start and attach')
end
if not common.wait_title(bufnr, '▶ Run eval') then
  return fail('no "▶ Run eval" lens; lenses: ' .. vim.inspect(common.titles(bufnr)))
end
vim.api.nvim_win_set_cursor(0, { 1, 0 })

-- 1. run the case
vim.lsp.codelens.run()
if not vim.wait(timeout, function() return verdict() ~= nil end, 100) then
  return fail('no verdict lens; lenses: ' .. vim.inspect(common.titles(bufnr)))
end
out.verdict_before = verdict()
table.insert(out.steps, 'ran')

-- 2. rename it in the buffer (line 1 is `name: <old>`) and save, as a user does with `cw`
vim.api.nvim_buf_set_lines(bufnr, 0, 1, false, { 'name: ' .. new_name })
vim.cmd('write')
-- the lens is re-requested on InsertLeave / CursorHold / BufWritePost; wait for the one under the new name
local function lens_of_new_name()
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr) or {}) do
    local arg = lens.command and lens.command.arguments and lens.command.arguments[1]
    if type(arg) == 'table' and arg.name == new_name then
      return true
    end
  end
end
if not vim.wait(30000, function() return lens_of_new_name() and verdict() ~= nil end, 100) then
  out.lenses_after_rename = common.titles(bufnr)
  return fail('no verdict lens for ' .. new_name .. ' after the rename: ' .. vim.inspect(common.titles(bufnr)))
end
vim.wait(1000)
require('evalens').refresh(bufnr)
vim.wait(1500)
out.verdict_after = verdict()
out.lenses_after_rename = common.titles(bufnr)
out.screen = common.screen(bufnr)
table.insert(out.steps, 'renamed')

-- 3. :EvalensShow on the renamed case: its run, not "no run recorded yet"
vim.api.nvim_win_set_cursor(0, { 1, 0 })
vim.cmd('EvalensShow')
if not common.wait_other_buffer(bufnr) then
  out.show_notes = out.notes
  return fail(':EvalensShow opened no buffer: ' .. vim.inspect(out.notes))
end
out.show = vim.api.nvim_buf_get_lines(vim.api.nvim_get_current_buf(), 0, -1, false)
table.insert(out.steps, 'show')

-- 4. the "Show run" lens opens the same
common.back_to(bufnr, 1)
common.pick_lens('Show run')
out.show_lens = common.title(bufnr, 'Show run') ~= nil
if out.show_lens then
  vim.lsp.codelens.run()
  out.show_lens_opened = common.wait_markdown_opened(bufnr)
end
table.insert(out.steps, 'show-lens')
out.version = common.version()
finish(0)
