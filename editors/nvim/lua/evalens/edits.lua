-- CreateFile as the LSP spec means it. Neovim (0.7 to 0.11 at least) only adds a buffer for a CreateFile with
-- `ignoreIfExists` and never writes the file, so "Create empty `report.pdf`" did nothing on disk. The spec:
-- create the file unless it exists. We create it (exclusively: an existing file is never touched) before
-- Neovim applies the edit; Neovim then adds its buffer as before.

local M = {}

local function create_missing(change)
  local opts = change.options or {}
  if change.kind ~= 'create' or not opts.ignoreIfExists or opts.overwrite then
    return -- Neovim writes these itself
  end
  local fname = vim.uri_to_fname(change.uri)
  if vim.loop.fs_stat(fname) then
    return
  end
  vim.fn.mkdir(vim.fn.fnamemodify(fname, ':h'), 'p')
  local fd = vim.loop.fs_open(fname, 'wx', 420) -- 0644; 'x' fails when it appeared meanwhile
  if fd then
    vim.loop.fs_close(fd)
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
    for _, change in ipairs((edit and edit.documentChanges) or {}) do
      create_missing(change)
    end
    return apply(edit, ...)
  end
  util._evalens_create_file = true
end

return M
