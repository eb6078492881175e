-- Loaded at startup from the runtimepath: `:EvalensInstall` exists before any eval file is opened (on 0.11 the
-- evalens module loads only when the first eval file starts the server, which needs evalens installed).
if vim.g.loaded_evalens_install then
  return
end
vim.g.loaded_evalens_install = true
vim.api.nvim_create_user_command('EvalensInstall', function(opts)
  require('evalens.install').install(opts.args)
end, { nargs = '?', complete = 'file', desc = "evalens: install evalens into a private venv (stdpath('data'))" })
