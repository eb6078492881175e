-- Headless driver (no agent): the "Create empty `report.pdf`" quick fix on 03-broken.yaml, picked through
-- vim.lsp.buf.code_action() as a user does, must create the file on disk (issue 27 #2).
local bufnr = vim.api.nvim_get_current_buf()
local target = os.getenv('EVALENS_CREATE_TARGET')
local out = { offered = {} }

local function finish(code)
  out.exists = vim.loop.fs_stat(target) ~= nil
  local f = assert(io.open(os.getenv('EVALENS_NVIM_OUT'), 'w'))
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd((code == 0 and 'qall!') or 'cquit ' .. code)
end

local function missing_fixture()
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.message:find('report.pdf', 1, true) then
      return d
    end
  end
end

if not vim.wait(60000, function() return missing_fixture() ~= nil end, 50) then
  out.error = 'no diagnostic about report.pdf'
  return finish(1)
end
local d = missing_fixture()
vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })

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
finish(0)
