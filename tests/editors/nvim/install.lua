-- Headless driver (no agent): `:EvalensInstall $EVALENS_INSTALL_SOURCE` with no server command set, then
-- `:checkhealth evalens`, then the broken case $EVALENS_CASE opened: the server must run from the private venv
-- and draw its diagnostics. Writes what the install did, the health report, the client's command and the
-- diagnostics count to $EVALENS_NVIM_OUT; the pytest wrapper (test_neovim_install.py) asserts.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local out = { version = common.version() }
local finish, fail = common.finisher(out)
local install = require('evalens.install')

out.cmd_before = install.default_cmd()
out.command_exists = vim.fn.exists(':EvalensInstall') == 2 -- before any eval file: plugin/evalens.lua made it
vim.cmd('EvalensInstall ' .. vim.fn.fnameescape(os.getenv('EVALENS_INSTALL_SOURCE')))
if not vim.wait(180000, function() return install.state.done end, 200) then
  return fail('the install did not finish')
end
out.install_ok, out.install_error, out.install_log, out.base = install.state.ok, install.state.error, install.state.log, install.state.base
if not install.state.ok then
  return fail('the install failed: ' .. tostring(install.state.error))
end
out.cmd_after = install.default_cmd()
vim.cmd('checkhealth evalens')
out.health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')

vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('EVALENS_CASE')))
local bufnr = vim.api.nvim_get_current_buf()
if not common.wait_attached(bufnr) then
  return fail('the evalens client did not start and attach')
end
out.client_cmd = common.attached(bufnr).config.cmd
vim.wait(20000, function() return #vim.diagnostic.get(bufnr) > 0 end, 100)
out.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  table.insert(out.diagnostics, d.message)
end
finish(0)
