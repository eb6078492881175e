-- Headless driver: run the case's "▶ Run eval" lens against the fake model, rename the case in the buffer and
-- save, then look at what the editor keeps of its run (issue 27 #7): the verdict lens, :EvalensShow and the
-- "Show run" lens. Writes what it saw to $EVALENS_NVIM_OUT; the pytest wrapper asserts, and runs
-- `evalens eval --stale --dry-run` on the saved package afterwards.
local bufnr = vim.api.nvim_get_current_buf()
local new_name = os.getenv('EVALENS_NEW_NAME')
local timeout = tonumber(os.getenv('EVALENS_NVIM_TIMEOUT') or '120') * 1000
local out = { steps = {} }

local function finish(code)
  local f = assert(io.open(os.getenv('EVALENS_NVIM_OUT'), 'w'))
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd((code == 0 and 'qall!') or 'cquit ' .. code)
end

local function fail(msg)
  out.error = msg
  finish(1)
end

local function client()
  local all = vim.fn.has('nvim-0.10') == 1 and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  for _, c in pairs(all) do
    if c.name == 'evalens' then
      return c
    end
  end
end

local function titles()
  local t = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr) or {}) do
    if lens.command then
      table.insert(t, lens.command.title)
    end
  end
  return t
end

local function has_title(prefix)
  for _, t in ipairs(titles()) do
    if t:sub(1, #prefix) == prefix then
      return t
    end
  end
end

local function verdict()
  return has_title('✓') or has_title('✗ FAIL') or has_title('⚠')
end

-- the buffer as drawn: each line, then the virtual text (lenses, diagnostics) Neovim puts after it
local function screen(b)
  local rows = {}
  local spaces = {}
  for _, ns in pairs(vim.api.nvim_get_namespaces()) do
    table.insert(spaces, ns)
  end
  table.sort(spaces)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(b, 0, -1, false)) do
    local virt = {}
    for _, ns in ipairs(spaces) do
      for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(b, ns, { i - 1, 0 }, { i - 1, -1 }, { details = true })) do
        for _, chunk in ipairs(mark[4].virt_text or {}) do
          table.insert(virt, chunk[1])
        end
      end
    end
    local drawn = table.concat(virt)
    table.insert(rows, string.format('%3d  %s%s', i, line, drawn ~= '' and ('    ' .. drawn) or ''))
  end
  return rows
end

-- several lenses share the `name:` line, so codelens.run() asks vim.ui.select: choose like a user would
local choice = '▶ Run eval'
vim.ui.select = function(items, opts, on_choice)
  for i, item in ipairs(items) do
    if opts.format_item(item) == choice then
      return on_choice(item, i)
    end
  end
  on_choice(nil, nil)
end
out.notes = {}
local notify = vim.notify
vim.notify = function(msg, level, o)
  table.insert(out.notes, msg)
  return notify(msg, level, o)
end

if not vim.wait(30000, function()
  local c = client()
  return c ~= nil and c.initialized and vim.lsp.buf_is_attached(bufnr, c.id)
end, 50) then
  return fail('the evalens client did not start and attach')
end
if not vim.wait(30000, function() return has_title('▶ Run eval') ~= nil end, 50) then
  return fail('no "▶ Run eval" lens; lenses: ' .. vim.inspect(titles()))
end
vim.api.nvim_win_set_cursor(0, { 1, 0 })

-- 1. run the case
vim.lsp.codelens.run()
if not vim.wait(timeout, function() return verdict() ~= nil end, 100) then
  return fail('no verdict lens; lenses: ' .. vim.inspect(titles()))
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
  out.lenses_after_rename = titles()
  return fail('no verdict lens for ' .. new_name .. ' after the rename: ' .. vim.inspect(titles()))
end
vim.wait(1000)
require('evalens').refresh(bufnr)
vim.wait(1500)
out.verdict_after = verdict()
out.lenses_after_rename = titles()
out.screen = screen(bufnr)
table.insert(out.steps, 'renamed')

-- 3. :EvalensShow on the renamed case: its run, not "no run recorded yet"
vim.api.nvim_win_set_cursor(0, { 1, 0 })
vim.cmd('EvalensShow')
if not vim.wait(15000, function() return vim.api.nvim_get_current_buf() ~= bufnr end, 50) then
  out.show_notes = out.notes
  return fail(':EvalensShow opened no buffer: ' .. vim.inspect(out.notes))
end
out.show = vim.api.nvim_buf_get_lines(vim.api.nvim_get_current_buf(), 0, -1, false)
table.insert(out.steps, 'show')

-- 4. the "Show run" lens opens the same
vim.cmd('only')
vim.api.nvim_set_current_buf(bufnr)
vim.api.nvim_win_set_cursor(0, { 1, 0 })
choice = 'Show run'
out.show_lens = has_title('Show run') ~= nil
if out.show_lens then
  vim.lsp.codelens.run()
  out.show_lens_opened = vim.wait(15000, function()
    local b = vim.api.nvim_get_current_buf()
    return b ~= bufnr and vim.bo[b].filetype == 'markdown'
  end, 50)
end
table.insert(out.steps, 'show-lens')
out.version = tostring(vim.version().major) .. '.' .. tostring(vim.version().minor)
finish(0)
