-- evalens for Neovim: attach the evalens language server to eval files and make its code lenses usable.
--
-- Neovim 0.7-0.10:  vim.opt.runtimepath:append('/path/to/evalens/editors/nvim')
--                   require('evalens').setup({ cmd = { 'evalens', 'lsp' } })
-- Neovim 0.11+:     vim.opt.runtimepath:append('/path/to/evalens/editors/nvim')
--                   vim.lsp.enable('evalens')          (uses lsp/evalens.lua, which uses this module)
--
-- What this handles for you (see editors/nvim/README.md):
--   * the 0.7 code-lens wedge: codelens.refresh() before the client is initialised and attached leaves the
--     buffer's "refresh in progress" flag set forever, so lenses never appear; we refresh only when safe;
--   * no workspace/codeLens/refresh before Neovim 0.12: the server's evalens/runState and
--     evalens/verdictChanged notifications trigger the refresh instead (the Cancel lens while a run is in
--     flight, the verdict lens when it ends, also for runs started elsewhere);
--   * key mappings to run and refresh code lenses;
--   * a CreateFile with ignoreIfExists creates the file on disk (evalens/edits.lua);
--   * a run with unsaved edits asks "Save and run" first; "New eval case" puts the cursor on the new prompt
--     (evalens/authoring.lua).

local M = {}

--- The file kinds the server handles (generated from evalens/core/kinds.py, the list the server publishes
--- at initialize): { glob, language_id, formats, regex } each.
M.kinds = require('evalens.kinds')

local function kind_filetypes()
  local seen, out = {}, {}
  for _, kind in ipairs(M.kinds) do
    if not seen[kind.language_id] then
      seen[kind.language_id] = true
      table.insert(out, kind.language_id)
    end
  end
  return out
end

M.defaults = {
  -- nil: the private venv's evalens once :EvalensInstall made it, else `evalens lsp` from PATH (evalens.install)
  cmd = nil,
  filetypes = kind_filetypes(), -- every file kind's language id (yaml, json, markdown)
  -- Served to workspace/configuration and sent as initializationOptions (Neovim 0.7 only does the latter).
  -- Keys: engine, judge, timeout, maxParallelRuns, keepSandbox, apiKeyEnvVars (names, never keys), codeLens,
  -- run = { repeats = 5, maxCost = nil (USD), maxTokens = nil } (the "Run N×" lens, the budget of each batch).
  settings = { evalens = {} },
  -- Buffer-local normal-mode mappings; set a key to false (or keys = false) to skip it.
  keys = { run = '<leader>er', refresh = '<leader>el', run_all = '<leader>ea', cancel = '<leader>ec', hover = 'K' },
}

M.options = vim.deepcopy(M.defaults)

--- :EvalensInstall [source]: evalens into a private venv (lua/evalens/install.lua); global, because it is what a
--- user without a working server runs first. plugin/evalens.lua defines it too, before any eval file is opened.
function M.create_install_command()
  vim.api.nvim_create_user_command('EvalensInstall', function(opts)
    require('evalens.install').install(opts.args)
  end, { nargs = '?', complete = 'file', desc = "evalens: install evalens into a private venv (stdpath('data'))" })
end
M.create_install_command()

local has_010 = vim.fn.has('nvim-0.10') == 1
local has_011 = vim.fn.has('nvim-0.11') == 1

local regexes = {}

--- The file kind of a path (nil when evalens does not handle it).
function M.kind_of(path)
  if not path or path == '' then
    return nil
  end
  path = path:gsub('\\', '/')
  for i, kind in ipairs(M.kinds) do
    regexes[i] = regexes[i] or vim.regex(kind.regex)
    if regexes[i]:match_str(path) then
      return kind
    end
  end
  return nil
end

local function exists(path)
  return (vim.uv or vim.loop).fs_stat(path) ~= nil
end

--- The root of an eval file: the nearest folder holding `evals/`, `SKILL.md` or `.git` (else the file's
--- folder); nil for files that are none of the kinds the server handles.
function M.root_dir(path)
  if not M.kind_of(path) then
    return nil
  end
  -- The package (a folder with `evals/`) or the repository wins over a skill's own folder: a package's
  -- skills/<name>/SKILL.md then shares its package's server instead of starting one rooted at the skill.
  local dir = vim.fn.fnamemodify(path, ':p:h')
  local skill_dir
  while true do
    if vim.fn.isdirectory(dir .. '/evals') == 1 or exists(dir .. '/.git') then
      return dir
    end
    if not skill_dir and exists(dir .. '/SKILL.md') then
      skill_dir = dir -- a lone skill (no package, no repository above): its own folder
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return skill_dir or vim.fn.fnamemodify(path, ':p:h')
    end
    dir = parent
  end
end

local function clients_of(bufnr)
  local all = has_010 and vim.lsp.get_clients({ bufnr = bufnr, name = 'evalens' }) or vim.lsp.get_active_clients()
  local out = {}
  for _, client in pairs(all) do
    if client.name == 'evalens' and vim.lsp.buf_is_attached(bufnr, client.id) then
      table.insert(out, client)
    end
  end
  return out
end

M.clients_of = clients_of

--- Refresh the code lenses of a buffer, but only once an initialised evalens client is attached
--- (refreshing earlier wedges 0.7's lens state for that buffer).
function M.refresh(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  local ready = false
  for _, client in ipairs(clients_of(bufnr)) do
    if client.initialized then
      ready = true
    end
  end
  if not ready then
    return
  end
  if has_010 then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  else
    vim.api.nvim_buf_call(bufnr, function()
      vim.lsp.codelens.refresh()
    end)
  end
end

local function request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- Run an evalens command with its one dict argument; the answer goes to `on_result(result)`, an error to
--- `on_error(err)` when given (a caller with a fallback), else to a notification.
function M.exec(bufnr, command, arg, on_result, on_error)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = clients_of(bufnr)[1]
  if not client then
    vim.notify('evalens: no language server attached to this buffer', vim.log.levels.WARN)
    return
  end
  request(client, 'workspace/executeCommand', { command = command, arguments = { arg } }, function(err, result)
    if err and on_error then
      on_error(err)
    elseif err then
      vim.notify('evalens: ' .. command .. ' failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif on_result then
      on_result(result)
    end
    M.refresh(bufnr)
  end, bufnr)
end

local function each_attached_buffer(client_id, fn)
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.lsp.buf_is_attached(bufnr, client_id) then
      fn(bufnr)
    end
  end
end

--- Handlers for the server's own notifications (pass as the client's `handlers`).
function M.handlers()
  return require('evalens.ui').wrap_handlers({
    ['evalens/runTurn'] = function(_, params)
      require('evalens.show').turn(params)
    end,
    ['evalens/runState'] = function(_, _, ctx)
      each_attached_buffer(ctx.client_id, M.refresh)
    end,
    ['evalens/verdictChanged'] = function(_, params, ctx)
      local bufnr = vim.fn.bufnr(vim.uri_to_fname(params.uri))
      if bufnr ~= -1 then
        M.refresh(bufnr)
      end
      each_attached_buffer(ctx.client_id, function(b)
        if vim.api.nvim_buf_get_name(b):match('eval%-config%.json$') then
          M.refresh(b) -- the "Run all" summary lens
        end
      end)
    end,
  })
end

local function run_all(bufnr)
  local authoring = require('evalens.authoring')
  authoring.ensure_saved(authoring.eval_buffers(bufnr), function() -- a run reads the saved files
    local arg = { uri = vim.uri_from_bufnr(bufnr) }
    authoring.confirm_batch(bufnr, M.exec, arg, function() -- several paid runs: ask, as the lens does
      require('evalens.ui').echo("evalens: running every eval case of this file's package…")
      M.exec(bufnr, 'evalens.runAll', arg, require('evalens.ui').summarize_runs)
    end)
  end)
end

local function cancel(bufnr)
  M.exec(bufnr, 'evalens.cancelRun', { uri = vim.uri_from_bufnr(bufnr) }, require('evalens.ui').summarize_cancel)
end

local function map(bufnr, lhs, rhs, desc)
  if lhs then
    vim.keymap.set('n', lhs, rhs, { buffer = bufnr, silent = true, desc = 'evalens: ' .. desc })
  end
end

--- Key mappings, user commands and lens refresh for one buffer (the client's `on_attach`).
function M.on_attach(client, bufnr)
  local keys = vim.g.evalens_keys
  if keys == nil then
    keys = M.options.keys
  end
  local ui = require('evalens.ui')
  require('evalens.edits').install() -- "Create `x`" quick fixes write the file (Neovim only adds a buffer)
  if client then
    ui.short_verdicts(client)
  end
  if keys then
    ui.map_hover(bufnr, keys.hover == nil and 'K' or keys.hover)
  end
  if keys then
    map(bufnr, keys.run, vim.lsp.codelens.run, 'run the code lens on this line')
    map(bufnr, keys.refresh, function() M.refresh(bufnr) end, 'refresh code lenses')
    map(bufnr, keys.run_all, function() run_all(bufnr) end, "run every eval case of this file's package")
    map(bufnr, keys.cancel, function() cancel(bufnr) end, "cancel the runs of this file's package")
  end
  vim.api.nvim_buf_create_user_command(bufnr, 'EvalensRunAll', function()
    run_all(bufnr)
  end, { desc = "evalens: run every eval case of this file's package" })
  vim.api.nvim_buf_create_user_command(bufnr, 'EvalensCancel', function()
    cancel(bufnr)
  end, { desc = "evalens: cancel the runs of this file's package" })
  vim.api.nvim_buf_create_user_command(bufnr, 'EvalensLastReport', function()
    require('evalens.show').last_report(bufnr, M.exec)
  end, { desc = 'evalens: the newest report, rendered' })
  require('evalens.show').register_lens_command(M.exec)
  require('evalens.authoring').register(M.exec) -- "Save and run", the cursor on a new case's prompt
  require('evalens.runs').register(bufnr, M.exec)
  vim.api.nvim_buf_create_user_command(bufnr, 'EvalensShow', function(opts)
    require('evalens.show').show(bufnr, opts.args, M.exec)
  end, { nargs = '?', desc = 'evalens: what the agent did in the last run of the case under the cursor' })
  vim.api.nvim_buf_create_user_command(bufnr, 'EvalensTurns', function()
    require('evalens.show').open_turns()
  end, { desc = "evalens: the agents' turns as they arrive" })
  vim.api.nvim_buf_create_user_command(bufnr, 'EvalensMatrix', function(opts)
    require('evalens.show').matrix(bufnr, opts.args, M.exec)
  end, { nargs = '?', desc = "evalens: the package's newest matrix run, one column per engine · model" })
  vim.api.nvim_buf_create_user_command(bufnr, 'EvalensCompare', function(opts)
    require('evalens.show').show(bufnr, opts.args, M.exec, true)
  end, { nargs = '?', desc = "evalens: the case's two most recent runs side by side" })

  local group = vim.api.nvim_create_augroup('evalens_lenses_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'CursorHold', 'InsertLeave', 'BufWritePost' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      M.refresh(bufnr)
    end,
  })
  M.refresh(bufnr)
end

--- The client configuration for a package root (Neovim 0.7-0.10 recipe).
function M.client_config(root)
  return {
    name = 'evalens',
    cmd = M.options.cmd or require('evalens.install').default_cmd(),
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    settings = M.options.settings,
    init_options = M.options.settings,
    handlers = M.handlers(),
    on_attach = M.on_attach,
  }
end

local client_ids = {} -- package root -> client id (one server per package, reused across its buffers)

--- Whether client `id` is gone. Not `vim.lsp.client_is_stopped`: on 0.7 it is true for a client that has not
--- answered `initialize` yet, so a buffer reloaded (`:e!`) within a second of opening started a second server
--- for the same root, and every diagnostic was drawn twice (issue 45 #5). `get_client_by_id` also knows a
--- client that is still starting.
local function gone(id)
  local client = id and vim.lsp.get_client_by_id(id)
  return not client or (client.is_stopped ~= nil and client.is_stopped(client)) -- a method on 0.10+
end

--- Attach a buffer to the evalens server of its package (started on first use).
function M.attach(bufnr)
  local root = M.root_dir(vim.api.nvim_buf_get_name(bufnr))
  if not root then
    return
  end
  local id = client_ids[root]
  if gone(id) then
    id = vim.lsp.start_client(M.client_config(root))
    client_ids[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

--- Neovim 0.7-0.10: start/attach the server on FileType. On 0.11+ prefer vim.lsp.enable('evalens').
function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  local group = vim.api.nvim_create_augroup('evalens', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.options.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do -- buffers opened before setup()
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(M.options.filetypes, vim.bo[bufnr].filetype) then
      M.attach(bufnr)
    end
  end
end

return M
