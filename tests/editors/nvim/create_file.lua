-- Headless driver (no agent): the "Create empty `report.pdf`" quick fix on 03-broken.yaml, picked through
-- vim.lsp.buf.code_action() as a user does, must create the file on disk (issue 27 #2), and the case's
-- "✗ N errors: fix to run" lens must count one problem fewer without a keystroke (issue 27 #4).
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local bufnr = vim.api.nvim_get_current_buf()
local target = os.getenv('EVALENS_CREATE_TARGET')
local out = { offered = {} }
local write_and_quit = common.finisher(out)

local function finish(code)
  out.exists = vim.loop.fs_stat(target) ~= nil
  write_and_quit(code)
end

local function missing_fixture()
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.message:find('report.pdf', 1, true) then
      return d
    end
  end
end

-- the "✗ N errors" lens's title and its N (nil while there is none)
local function problems_lens()
  for _, title in ipairs(common.titles(bufnr)) do
    local n = title:match('^✗ (%d+) errors?')
    if n then
      return title, tonumber(n)
    end
  end
end

if not vim.wait(60000, function() return missing_fixture() ~= nil end, 50) then
  out.error = 'no diagnostic about report.pdf'
  return finish(1)
end
if not vim.wait(30000, function() return problems_lens() ~= nil end, 50) then
  out.error = 'no "✗ N errors" lens'
  return finish(1)
end
local before
out.lens_before, before = problems_lens()
local d = missing_fixture()
vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
out.screen_before = common.screen(bufnr)

local picked = false
vim.ui.select = function(items, opts, on_choice)
  for i, item in ipairs(items) do
    local action = item.action or item[2] or item -- 0.11: { action, ctx }; 0.7: { client_id, action }
    local title = opts.format_item and opts.format_item(item) or action.title
    table.insert(out.offered, title)
    if title:find('Create empty `report.pdf`', 1, true) then
      picked = true
      return on_choice(item, i)
    end
  end
  on_choice(nil, nil)
end
vim.lsp.buf.code_action()
if not vim.wait(30000, function() return picked and vim.loop.fs_stat(target) ~= nil end, 50) then
  out.error = 'the file was not created'
  return finish(1)
end
out.buffer = vim.fn.bufnr(target) ~= -1
-- no keystroke: the lens and the problems follow the new file by themselves
out.lens_followed = vim.wait(15000, function()
  local _, n = problems_lens()
  return n ~= nil and n < before
end, 50)
out.lens_after = problems_lens()
out.diagnostic_gone = vim.wait(5000, function() return missing_fixture() == nil end, 50)
out.diagnostics_after = {}
for _, diag in ipairs(vim.diagnostic.get(bufnr)) do
  table.insert(out.diagnostics_after, diag.message)
end
out.screen_after = common.screen(bufnr)
finish(0)
