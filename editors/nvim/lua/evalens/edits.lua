-- CreateFile as the LSP spec means it. Neovim (0.7 to 0.11 at least) only adds a buffer for a CreateFile with
-- `ignoreIfExists` and never writes the file, so "Create empty `report.pdf`" did nothing on disk. The spec:
-- create the file unless it exists. We create it (exclusively: an existing file is never touched) before
-- Neovim applies the edit; Neovim then adds its buffer as before.
--
-- Then the server must hear of it. VS Code's file watcher tells it (workspace/didChangeWatchedFiles) and VS Code
-- honours workspace/codeLens/refresh; Neovim on Linux does neither (0.7 has no file watching, 0.11 does not offer
-- dynamic registration there, and neither has codeLens.refreshSupport). So the file's problems and the
-- "✗ N errors" lens kept their old count (issue 27 #4). We send the watched-file change ourselves, then ask
-- again for the lenses of the evalens buffers (and, on 0.11, which pulls diagnostics but has no
-- workspace/diagnostic/refresh support, for their diagnostics): the server re-validates while it handles the
-- notification, before it reads the requests that follow it on the same pipe.

local M = {}

local has_010 = vim.fn.has('nvim-0.10') == 1
local has_011 = vim.fn.has('nvim-0.11') == 1

local FILE_CREATED = 1 -- FileChangeType.Created

--- Creates the file of a `create` change unless it exists; true when it did.
local function create_missing(change)
  local opts = change.options or {}
  if change.kind ~= 'create' or not opts.ignoreIfExists or opts.overwrite then
    return false -- Neovim writes these itself
  end
  local fname = vim.uri_to_fname(change.uri)
  if vim.loop.fs_stat(fname) then
    return false
  end
  vim.fn.mkdir(vim.fn.fnamemodify(fname, ':h'), 'p')
  local fd = vim.loop.fs_open(fname, 'wx', 420) -- 0644; 'x' fails when it appeared meanwhile
  if not fd then
    return false
  end
  vim.loop.fs_close(fd)
  return true
end

local function evalens_clients()
  local all = has_010 and vim.lsp.get_clients({ name = 'evalens' }) or vim.lsp.get_active_clients()
  local out = {}
  for _, client in pairs(all) do
    if client.name == 'evalens' and client.initialized then
      table.insert(out, client)
    end
  end
  return out
end

--- Tell every evalens server that `uris` appeared, then re-request the lenses of the buffers it serves.
local function announce_created(uris)
  local changes = {}
  for _, uri in ipairs(uris) do
    table.insert(changes, { uri = uri, type = FILE_CREATED })
  end
  local evalens = require('evalens')
  for _, client in ipairs(evalens_clients()) do
    local params = { changes = changes }
    if has_011 then
      client:notify('workspace/didChangeWatchedFiles', params)
    else
      client.notify('workspace/didChangeWatchedFiles', params)
    end
    local pulls = has_011 and client:supports_method('textDocument/diagnostic')
    for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(bufnr) and vim.lsp.buf_is_attached(bufnr, client.id) then
        evalens.refresh(bufnr)
        if pulls then -- the default handler draws the answer
          client:request('textDocument/diagnostic', { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, nil, bufnr)
        end
      end
    end
  end
end

--- Wraps vim.lsp.util.apply_workspace_edit once (code actions and workspace/applyEdit both go through it).
function M.install()
  local util = vim.lsp.util
  if util._evalens_create_file then
    return
  end
  local apply = util.apply_workspace_edit
  util.apply_workspace_edit = function(edit, ...)
    local created = {}
    for _, change in ipairs((edit and edit.documentChanges) or {}) do
      if create_missing(change) then
        table.insert(created, change.uri)
      end
    end
    local result = apply(edit, ...)
    if #created > 0 then
      announce_created(created)
    end
    return result
  end
  util._evalens_create_file = true
end

return M
