-- evalens language server for Neovim 0.11+ (`vim.lsp.enable('evalens')`).
--
-- Put editors/nvim on the runtimepath (it also holds lua/evalens, used below), then:
--   vim.lsp.enable('evalens')
-- Override anything with vim.lsp.config('evalens', { cmd = ..., settings = { evalens = { ... } } }).
local evalens = require('evalens')

---@type vim.lsp.Config
return {
  -- the private venv's evalens once :EvalensInstall made it, else `evalens lsp` from PATH
  cmd = require('evalens.install').default_cmd(),
  filetypes = evalens.defaults.filetypes, -- the language ids of the file kinds (lua/evalens/kinds.lua)
  -- Only the file kinds the server handles start it (SKILL.md, task.md, evals.json, evals/**, …); the root
  -- is the nearest folder holding `evals/` or `.git`, else a lone skill's folder (the one with SKILL.md).
  root_dir = function(bufnr, on_dir)
    local root = evalens.root_dir(vim.api.nvim_buf_get_name(bufnr))
    if root then
      on_dir(root)
    end
  end,
  -- engine, judge, timeout, maxParallelRuns, keepSandbox, apiKeyEnvVars (names of env vars, never keys), codeLens,
  -- run = { repeats = 5, maxCost = <USD>, maxTokens = <n> }
  settings = { evalens = {} },
  handlers = evalens.handlers(),
  on_attach = evalens.on_attach,
}
