-- Client-side halves of two server commands, as vim.lsp.commands (the code lens and code action pick them up):
--   * evalens.runCase / runFile / runAll: a run reads the saved file, so a buffer with unsaved edits first asks
--     "Save and run" or "Run the saved file" (VS Code: vscode-extension/src/saveBeforeRun.ts);
--   * evalens.newCase ("New eval case for this skill" on SKILL.md): the server writes the case with a workspace
--     edit and answers where its prompt is; the cursor goes there;
--   * evalens.optimizeDescription ("Optimize description with the trigger set…" on a SKILL.md description): the
--     server measures rewrites and answers the winner as an edit, which is applied to the buffer only when the
--     user picks "Apply the rewrite" (VS Code: the Refactor Preview). Nothing is saved.
local M = {}

M.APPLY = 'Apply the rewrite'
M.DISCARD = 'Discard'

M.SAVE_AND_RUN = 'Save and run'
M.RUN_SAVED = 'Run the saved file'

local RUNS = { 'evalens.runCase', 'evalens.runFile', 'evalens.runAll' }

--- Loaded buffers with unsaved edits among `bufnrs`.
local function dirty(bufnrs)
  local out = {}
  for _, b in ipairs(bufnrs) do
    if b ~= -1 and vim.api.nvim_buf_is_loaded(b) and vim.bo[b].modified then
      table.insert(out, b)
    end
  end
  return out
end

--- Calls `go()` when the run may start: nothing unsaved, saved on request, or the saved file chosen. The
--- question goes through vim.ui.select (a picker plugin, or Neovim's numbered list).
function M.ensure_saved(bufnrs, go)
  local unsaved = dirty(bufnrs)
  if #unsaved == 0 then
    return go()
  end
  local names = {}
  for _, b in ipairs(unsaved) do
    table.insert(names, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':t'))
  end
  local prompt = ('%s %s unsaved changes; a run reads the saved file'):format(table.concat(names, ', '),
    #unsaved == 1 and 'has' or 'have')
  vim.ui.select({ M.SAVE_AND_RUN, M.RUN_SAVED }, { prompt = prompt }, function(choice)
    if choice == M.SAVE_AND_RUN then
      for _, b in ipairs(unsaved) do
        vim.api.nvim_buf_call(b, function()
          vim.cmd('silent noautocmd write')
        end)
      end
      go()
    elseif choice == M.RUN_SAVED then
      go()
    else
      vim.notify('evalens: not run (unsaved changes)', vim.log.levels.INFO)
    end
  end)
end

--- Every loaded buffer of a file kind evalens handles (`bufnr` when there is none).
function M.eval_buffers(bufnr)
  local out = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and require('evalens').kind_of(vim.api.nvim_buf_get_name(b)) then
      table.insert(out, b)
    end
  end
  if #out == 0 then
    out = { bufnr }
  end
  return out
end

--- The buffers a run command reads: the one of its `uri` (runCase, runFile), every eval buffer for runAll.
local function buffers_of(command, arg, bufnr)
  if command ~= 'evalens.runAll' and type(arg.uri) == 'string' then
    return { vim.fn.bufnr(vim.uri_to_fname(arg.uri)) }
  end
  return M.eval_buffers(bufnr)
end

--- What the answer of a run command adds to the progress messages: why a unit did not run.
local function on_run_result(result)
  local results = (type(result) == 'table' and result.verdict) and { result } or result
  if type(results) ~= 'table' then
    return
  end
  for _, r in ipairs(results) do
    if type(r) == 'table' and r.problems then
      vim.notify(('evalens: %s: %s'):format(r.name or '?', r.reason or 'not run'), vim.log.levels.WARN)
    end
  end
end

--- Put the cursor on `position` (an LSP position) of the file `uri`, opening it in the current window.
function M.reveal(uri, position)
  local target = vim.uri_to_bufnr(uri)
  vim.fn.bufload(target)
  vim.bo[target].buflisted = true
  vim.api.nvim_win_set_buf(0, target)
  local line = vim.api.nvim_buf_get_lines(target, position.line, position.line + 1, false)[1] or ''
  local col = position.character
  if line:find('[\128-\255]') then -- LSP columns are UTF-16 code units; the cursor wants bytes
    local ok, byte
    if vim.fn.has('nvim-0.11') == 1 then
      ok, byte = pcall(vim.str_byteindex, line, 'utf-16', col, false)
    else
      ok, byte = pcall(vim.str_byteindex, line, col, true)
    end
    col = ok and byte or col
  end
  vim.api.nvim_win_set_cursor(0, { position.line + 1, col })
end

--- The optimizer's answer: the winner with its held-out gain, applied to the buffer only on "Apply the rewrite".
function M.review_rewrite(bufnr, result)
  if type(result) ~= 'table' then
    return
  end
  local winner, edit = result.winner, result.edit
  if type(winner) ~= 'table' or type(edit) ~= 'table' then
    local why = type(result.error) == 'string' and result.error or 'no rewrite accepted: the description stays as it is'
    vim.notify('evalens: ' .. why, vim.log.levels.INFO)
    return
  end
  local gain = ''
  if type(winner.difference) == 'table' and #winner.difference == 3 then
    local d = winner.difference
    gain = (' (held-out %+.2f [%+.2f, %+.2f])'):format(d[1], d[2], d[3])
  end
  local prompt = ('evalens: %s wins%s: description: %s'):format(winner.label or 'a rewrite', gain, winner.description or '')
  vim.ui.select({ M.APPLY, M.DISCARD }, { prompt = prompt }, function(choice)
    if choice ~= M.APPLY then
      vim.notify('evalens: rewrite discarded; the description stays as it is', vim.log.levels.INFO)
      return
    end
    local encoding = 'utf-16'
    local all = vim.fn.has('nvim-0.10') == 1 and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
    for _, c in pairs(all) do
      if c.name == 'evalens' then
        encoding = c.offset_encoding or encoding
      end
    end
    vim.lsp.util.apply_workspace_edit(edit, encoding)
    vim.notify('evalens: description rewritten in the buffer (review it, then save)', vim.log.levels.INFO)
  end)
end

--- Registers the commands (idempotent: vim.lsp.commands is global).
function M.register(exec)
  for _, name in ipairs(RUNS) do
    vim.lsp.commands[name] = function(command, ctx)
      local arg = command.arguments and command.arguments[1] or {}
      local bufnr = ctx and ctx.bufnr or vim.api.nvim_get_current_buf()
      M.ensure_saved(buffers_of(name, arg, bufnr), function()
        exec(bufnr, name, arg, on_run_result)
      end)
    end
  end
  vim.lsp.commands['evalens.newCase'] = function(command, ctx)
    local arg = vim.deepcopy(command.arguments and command.arguments[1] or {})
    arg.reveal = false -- the cursor is put here
    exec(ctx and ctx.bufnr or 0, 'evalens.newCase', arg, function(result)
      if type(result) == 'table' and result.uri and result.position then
        M.reveal(result.uri, result.position)
        vim.notify('evalens: new eval case in ' .. (result.title or vim.uri_to_fname(result.uri)), vim.log.levels.INFO)
      end
    end)
  end
  vim.lsp.commands['evalens.optimizeDescription'] = function(command, ctx)
    local arg = command.arguments and command.arguments[1] or {}
    local bufnr = ctx and ctx.bufnr or vim.api.nvim_get_current_buf()
    vim.notify('evalens: measuring description rewrites on the trigger set (agents run; this takes a while)',
      vim.log.levels.INFO)
    exec(bufnr, 'evalens.optimizeDescription', arg, function(result)
      M.review_rewrite(bufnr, result)
    end)
  end
end

return M
