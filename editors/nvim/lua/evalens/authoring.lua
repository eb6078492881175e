-- Client-side halves of two server commands, as vim.lsp.commands (the code lens and code action pick them up):
--   * evalens.runCase / runFile / runAll: a run reads the saved file, so a buffer with unsaved edits first asks
--     "Save and run" or "Run the saved file" (VS Code: vscode-extension/src/saveBeforeRun.ts); a batch lens
--     ("↻ Run stale (6)", "▶ Run all evals", a file's "▶ Run all") starts several paid runs, so it then asks
--     the palette's question, naming the units the server says it will run (VS Code: src/spendConfirm.ts);
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

--- A lens command that runs many units as one batch: runAll, runFile, or runCase on a whole file (`name` "*"),
--- never a dry run (vscode-extension/src/protocol.ts isLensBatch). A single case's "▶ Run" does not ask.
function M.is_batch(command, arg)
  if arg.dryRun == true then
    return false
  end
  return command == 'evalens.runAll' or command == 'evalens.runFile' or (command == 'evalens.runCase' and arg.name == '*')
end

local SHOWN = 12

--- What the batch covers, for the question: "stale in cases.yaml", "every eval of eval-config.json".
function M.batch_scope(arg)
  local file = type(arg.uri) == 'string' and vim.fn.fnamemodify(vim.uri_to_fname(arg.uri), ':t') or 'the workspace'
  return arg.select and (arg.select .. ' in ' .. file) or ('every eval of ' .. file)
end

--- The palette's question (vscode-extension/src/spend.ts spendQuestion) over `units` ({name} each), one
--- sentence then a line per unit (the first 12); and the label of the button that runs them.
function M.spend_question(units, what)
  local n = #units
  local evals = ('%d eval%s'):format(n, n == 1 and '' or 's')
  local lines = { ('Run %s (%s)? Each one is a real agent run and may cost money.'):format(evals, what) }
  for i = 1, math.min(n, SHOWN) do
    table.insert(lines, '• ' .. units[i].name)
  end
  if n > SHOWN then
    table.insert(lines, ('… and %d more'):format(n - SHOWN))
  end
  return table.concat(lines, '\n'), 'Run ' .. evals
end

--- Calls `go()` once the user said yes to a batch's runs (a batch lens, :EvalensRunAll, :EvalensRunFailed[!],
--- :EvalensRunStale[!]), or when the server picks nothing (the run then says so). The units are the server's
--- (evalens.pickUnits with the batch's uri and select: what it runs; no uri, with a select: the workspace's);
--- when it cannot say, the question names the scope only. Declined, nothing runs.
function M.confirm_batch(bufnr, exec, arg, go)
  local function ask(question, button)
    if vim.fn.confirm(question, '&' .. button .. '\n&Cancel', 2) == 1 then
      return go()
    end
    vim.notify('evalens: not run (' .. M.batch_scope(arg) .. ')', vim.log.levels.INFO)
  end
  local generic = ('Run %s? Each eval is a real agent run and may cost money.'):format(M.batch_scope(arg))
  if type(arg.uri) ~= 'string' and not arg.select then
    return ask(generic, 'Run')
  end
  exec(bufnr, 'evalens.pickUnits', { uri = arg.uri, select = arg.select }, function(units)
    if type(units) ~= 'table' then
      return ask(generic, 'Run')
    end
    if #units == 0 then
      return go()
    end
    ask(M.spend_question(units, M.batch_scope(arg)))
  end, function()
    ask(generic, 'Run') -- a server without evalens.pickUnits still asks
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
        local function go()
          if name == 'evalens.runCase' and arg.name and not arg.dryRun then
            require('evalens.show').expect_runs(arg.uri, arg.name, arg.runs) -- "Run 5×": turns say run k/5
          end
          exec(bufnr, name, arg, on_run_result)
        end
        if M.is_batch(name, arg) then
          return M.confirm_batch(bufnr, exec, arg, go) -- after the save: the server picks from the saved files
        end
        go()
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
