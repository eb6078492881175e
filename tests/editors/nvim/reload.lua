-- Headless driver (no agent): the case opened by the wrapper is reloaded with `:e!` at once, while its evalens
-- client is still initialising (issue 45 #5: Neovim 0.7.2 then started a second server for the same root and
-- drew every diagnostic twice). Writes how many evalens clients serve the root and attach the buffer, and how
-- often each diagnostic is drawn, to $EVALENS_NVIM_OUT; the pytest wrapper asserts.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local out = { version = common.version() }
local finish, fail = common.finisher(out)

vim.cmd('edit!') -- the FileType autocommand runs again before the first client has answered `initialize`
local bufnr = vim.api.nvim_get_current_buf()
if not common.wait_attached(bufnr) then
  return fail('the evalens client did not start and attach')
end
vim.cmd('edit!') -- and once more after it is running
vim.wait(3000) -- a second server, if one was started, has initialised by now
local root = common.attached(bufnr).config.root_dir
local function evalens(clients)
  local n = 0
  for _, c in pairs(clients) do
    if c.name == 'evalens' and c.config.root_dir == root then
      n = n + 1
    end
  end
  return n
end
out.root = root
out.clients = evalens(vim.lsp.get_active_clients())
out.buffer_clients = evalens(vim.lsp.buf_get_clients(bufnr))
local seen, twice = {}, 0
vim.wait(10000, function() return #vim.diagnostic.get(bufnr) > 0 end, 100)
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  local key = ('%d:%d:%s'):format(d.lnum, d.col, d.message)
  twice = twice + (seen[key] and 1 or 0)
  seen[key] = true
end
out.diagnostics = #vim.diagnostic.get(bufnr)
out.drawn_twice = twice
finish(0)
