-- Headless driver: the current buffer is an eval case; run its "▶ Run eval" lens the way a user does
-- (vim.lsp.codelens.run() on the `name:` line), wait for the verdict, report what the editor shows.
-- Exit code 0 = every step happened; the pytest wrapper asserts on the JSON written to $EVALENS_NVIM_OUT.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local bufnr = vim.api.nvim_get_current_buf()
local out = { steps = {} }
local timeout = tonumber(os.getenv('EVALENS_NVIM_TIMEOUT') or '120') * 1000
local finish, fail = common.finisher(out)

local function titles()
  return common.titles(bufnr)
end

local function has_title(prefix)
  return common.title(bufnr, prefix)
end

-- the lens virtual text on `line`
local function rendered(line)
  return common.virtual_text(bufnr, common.lens_namespace(bufnr), line)
end

if not common.wait_attached(bufnr) then
  return fail('the evalens client did not start and attach')
end
table.insert(out.steps, 'attached')

if not common.wait_title(bufnr, '▶ Run eval') then
  return fail('no "▶ Run eval" lens; lenses: ' .. vim.inspect(titles()))
end
out.lenses_before = titles()
local lens_line
for _, lens in ipairs(common.lenses(bufnr)) do
  if lens.title == '▶ Run eval' then
    lens_line = lens.line
  end
end
out.lens_line = lens_line
table.insert(out.steps, 'lenses')

-- What the user is told (vim.notify) and whether K is hover in this buffer (0.7 leaves it on `man`).
out.notes = {}
common.record_notes(out.notes)
local k = vim.fn.maparg('K', 'n', false, true)
out.k_is_buffer_mapping = type(k) == 'table' and k.buffer == 1
vim.diagnostic.config({ virtual_text = true }) -- on, as 0.7 has it and the README recommends for 0.11

-- Several lenses share the line, so codelens.run() asks vim.ui.select: choose the lens like a user would.
common.pick_lens('▶ Run eval')
vim.api.nvim_win_set_cursor(0, { lens_line + 1, 0 })

-- 1. start a run and cancel it (:EvalensCancel): the user hears about it, no verdict appears
vim.lsp.codelens.run()
if not common.wait_title(bufnr, '■ Cancel') then
  return fail('no "■ Cancel" lens while the first run was in flight')
end
-- cancel once the agent is really talking to the model (its first run sleeps in its shell until cancelled)
local fake_log = os.getenv('EVALENS_FAKE_LOG')
if fake_log and not vim.wait(60000, function()
  local f = io.open(fake_log, 'r')
  if not f then return false end
  local text = f:read('*a')
  f:close()
  return text:find('"scenario": "slow"', 1, true) ~= nil
end, 100) then
  return fail('the first run never reached the model')
end
vim.cmd('EvalensCancel')
if not common.wait_title(bufnr, '▶ Run eval', 90000) then
  return fail('the cancelled run did not end; lenses: ' .. vim.inspect(titles()) .. '; notes: ' .. vim.inspect(out.notes))
end
vim.wait(3000, function() return common.noted(out.notes, 'cancelled', 'Eval') end, 50)
out.notes_after_cancel = vim.deepcopy(out.notes)
out.lenses_after_cancel = titles()
table.insert(out.steps, 'cancelled')

-- 2. the real run
vim.lsp.codelens.run()

if common.wait_title(bufnr, '■ Cancel') then
  out.saw_cancel_lens = true
end

if not vim.wait(timeout, function() return has_title({ '✓', '✗', '⚠' }) ~= nil end, 100) then
  return fail('no verdict lens; lenses: ' .. vim.inspect(titles()))
end
out.verdict_lens = has_title({ '✓', '✗', '⚠' })
vim.wait(2000, function() return rendered(lens_line):find(out.verdict_lens, 1, true) ~= nil end, 50)
out.rendered = rendered(lens_line)
table.insert(out.steps, 'verdict')

if not vim.wait(15000, function()
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == 'evalens-run' and d.lnum == lens_line then
      return true
    end
  end
end, 50) then
  return fail('no verdict diagnostic on the name line')
end
out.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  if d.source == 'evalens-run' then
    table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, severity = d.severity, message = d.message,
      code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) })
  end
end
table.insert(out.steps, 'diagnostics')
-- the diagnostic's virtual text on the `name:` line is short, so the verdict lens next to it stays on screen
local diag_virt = {}
for ns = 1, 300 do -- 0.7 draws diagnostics in anonymous namespaces: look at every id
  local got, marks = pcall(vim.api.nvim_buf_get_extmarks, bufnr, ns, { lens_line, 0 }, { lens_line, -1 }, { details = true })
  for _, mark in ipairs(got and marks or {}) do
    local chunks = {}
    for _, chunk in ipairs(mark[4].virt_text or {}) do
      table.insert(chunks, chunk[1])
    end
    local text = table.concat(chunks)
    if text ~= '' and not text:find('Run eval', 1, true) then
      table.insert(diag_virt, text)
    end
  end
end
out.diagnostic_virtual_text = diag_virt
out.screen = common.screen(bufnr)
out.notes_at_end = out.notes

-- :EvalensShow on the case under the cursor: its run as a read-only Markdown buffer, a closed fold per turn.
vim.api.nvim_win_set_cursor(0, { lens_line + 1, 0 })
vim.cmd('EvalensShow')
if not common.wait_other_buffer(bufnr) then
  return fail(':EvalensShow opened no buffer')
end
local shown = vim.api.nvim_get_current_buf()
local lines = vim.api.nvim_buf_get_lines(shown, 0, -1, false)
out.show = { lines = lines, filetype = vim.bo[shown].filetype, modifiable = vim.bo[shown].modifiable,
  readonly = vim.bo[shown].readonly, foldmethod = vim.wo.foldmethod }
for i, line in ipairs(lines) do
  if line:match('^#### Turn') then
    out.show.turn_line = i
    out.show.turn_fold_closed = vim.fn.foldclosed(i) ~= -1
    out.show.unit_fold_closed = vim.fn.foldclosed(1) ~= -1
    break
  end
end
table.insert(out.steps, 'show')

-- the "Show run" lens does the same (a client-side command: Neovim opens the buffer, VS Code a webview)
common.back_to(bufnr, lens_line + 1)
common.pick_lens('Show run')
out.show_lens = has_title('Show run') ~= nil
vim.lsp.codelens.run()
out.show_lens_opened = common.wait_markdown_opened(bufnr)
table.insert(out.steps, 'show-lens')

-- :EvalensCompare: the case's two most recent runs side by side (the cancelled run is passed over: one run)
common.back_to(bufnr, lens_line + 1)
vim.cmd('EvalensCompare')
if common.wait_other_buffer(bufnr) then
  out.compare = vim.api.nvim_buf_get_lines(vim.api.nvim_get_current_buf(), 0, -1, false)
end
-- :EvalensLastReport: the newest report rendered, not its JSON
common.back_to(bufnr)
vim.cmd('EvalensLastReport')
if common.wait_other_buffer(bufnr) then
  local b = vim.api.nvim_get_current_buf()
  out.last_report = { filetype = vim.bo[b].filetype, first = vim.api.nvim_buf_get_lines(b, 0, 3, false) }
end
table.insert(out.steps, 'compare')
-- :EvalensTurns: the turns evalens/runTurn streamed during the runs
common.back_to(bufnr)
vim.cmd('EvalensTurns')
out.turns = vim.api.nvim_buf_get_lines(vim.api.nvim_get_current_buf(), 0, -1, false)
out.version = common.version()
finish(0)
