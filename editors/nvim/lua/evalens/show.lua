-- :EvalensShow: what the agent did in the last run of the case under the cursor, as a read-only Markdown
-- buffer (the server renders it: evalens.runView). Headings fold: a unit, its parts, each turn (closed).
local M = {}

--- The case under the cursor: the nearest code lens at or above the cursor line that names one.
function M.case_at_cursor(bufnr)
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  local best, best_line = nil, -1
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr) or {}) do
    local arg = lens.command and lens.command.arguments and lens.command.arguments[1]
    local start = lens.range and lens.range.start.line or -1
    if type(arg) == 'table' and type(arg.name) == 'string' and start <= line and start > best_line then
      best, best_line = arg.name, start
    end
  end
  return best
end

--- Fold level of a line of the run buffer: ## unit, ### part, #### turn or file.
function M.foldexpr(lnum)
  local text = vim.fn.getline(lnum)
  local hashes = text:match('^(#+) ')
  if hashes and #hashes >= 2 and #hashes <= 4 then
    return '>' .. (#hashes - 1)
  end
  return '='
end

--- Show `text` (Markdown) in a new read-only scratch buffer in a split; returns the buffer number.
function M.open(text, title)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  pcall(vim.api.nvim_buf_set_name, buf, title)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'markdown'
  vim.bo[buf].modifiable = false
  vim.bo[buf].readonly = true
  vim.cmd('vsplit')
  vim.api.nvim_win_set_buf(0, buf)
  vim.wo.foldmethod = 'expr'
  vim.wo.foldexpr = "v:lua.require'evalens.show'.foldexpr(v:lnum)"
  vim.wo.foldlevel = 2 -- units and their parts open, turns and files closed
  vim.wo.foldenable = true
  return buf
end

--- :EvalensShow [name]: the run of `name` (default: the case under the cursor) of this buffer's eval file.
--- With `compare` (:EvalensCompare): its two most recent runs side by side.
function M.show(bufnr, name, exec, compare)
  name = (name ~= nil and name ~= '') and name or M.case_at_cursor(bufnr)
  local arg = { uri = vim.uri_from_bufnr(bufnr), name = name, format = 'markdown', compare = compare or nil }
  exec(bufnr, 'evalens.runView', arg, function(result)
    if not result or not result.text then
      vim.notify('evalens: no run recorded yet for ' .. (name or 'this file') .. ': run it first')
      return
    end
    M.open(result.text, result.title or 'evalens run')
  end)
end

--- The text of :EvalensMatrix: the server's answer to evalens.matrix (the CLI's table, fenced) under a heading.
function M.matrix_text(result)
  local lines = {
    string.format('# evalens matrix: %d cells, run %s', #result.columns, result.batch),
    '',
    'runs that passed of those that passed or failed · 95% Wilson interval · cost',
    '',
    '```text',
  }
  vim.list_extend(lines, vim.split(result.table, '\n', { plain = true }))
  table.insert(lines, '```')
  for _, why in ipairs(result.unread or {}) do
    table.insert(lines, 'not read: ' .. why)
  end
  table.insert(lines, '')
  for _, path in ipairs(result.reportPaths or {}) do
    table.insert(lines, 'Report: `' .. path .. '`')
  end
  return table.concat(lines, '\n')
end

--- :EvalensMatrix [name]: the package's newest matrix run (`evalens run --engine a,b` / `--model A,B`), one row
--- per unit and one column per cell (k/N, interval, cost); with `name`, only that unit's row.
function M.matrix(bufnr, name, exec)
  local arg = { uri = vim.uri_from_bufnr(bufnr), name = (name ~= nil and name ~= '') and name or nil }
  exec(bufnr, 'evalens.matrix', arg, function(result)
    if type(result) ~= 'table' or type(result.table) ~= 'string' then -- null: vim.NIL
      vim.notify('evalens: no matrix run of this package' .. (arg.name and (' with ' .. arg.name) or '')
        .. ': run evalens run --engine claude-code,codex first')
      return
    end
    M.open(M.matrix_text(result), 'evalens matrix ' .. result.batch)
  end)
end

--- :EvalensLastReport: the newest report rendered (every unit, failures first); its file when it is not an
--- evalens report (another format's own result file).
function M.last_report(bufnr, exec)
  exec(bufnr, 'evalens.lastReport', { uri = vim.uri_from_bufnr(bufnr) }, function(report)
    if not report or not report.path then
      vim.notify('evalens: no report yet')
      return
    end
    exec(bufnr, 'evalens.runView', { reportPath = report.path, format = 'markdown' }, function(result)
      if result and result.text then
        M.open(result.text, result.title or report.path)
      else
        vim.cmd('split ' .. vim.fn.fnameescape(report.path))
      end
    end)
  end)
end

-- :EvalensTurns: the agents' turns as they arrive (evalens/runTurn), newest at the bottom (followed), the last 2000
-- lines.
local MARKS = { text = '💬', tool = '▸', result = '  ↳', hook = '⛔', error = '!', note = '…' }
local KEPT = 2000
local turn_lines = {}
local turns_buf = nil

local function turn_text(p)
  local body = (p.text or ''):gsub('%s+$', '')
  if p.kind == 'tool' then
    body = ((p.tool or 'tool') .. ' ' .. body):gsub('%s+$', '')
  elseif p.kind == 'result' and p.isError then
    body = 'failed: ' .. body
  elseif p.kind == 'hook' then
    body = (p.tool or 'hook') .. (p.blocked and ' blocked: ' or ' failed: ') .. body
  end
  local out = {}
  for i, line in ipairs(vim.split(body, '\n', { plain = true })) do
    if i > 6 then
      table.insert(out, '    …')
      break
    end
    table.insert(out, (i == 1 and ((MARKS[p.kind] or '') .. ' ') or '    ') .. line)
  end
  return out
end

--- Like `tail -f`: a window of the turns buffer whose cursor was on its last line moves to the new last line;
--- one where the user scrolled up to read stays where it is.
local function follow(buf, old_count)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf and vim.api.nvim_win_get_cursor(win)[1] >= old_count then
      vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(buf), 0 })
    end
  end
end

-- uri .. '#' .. name → { total = the runs a repeated run started here asks for ("Run 5×", :EvalensRunRepeat 5),
-- seen = its runs whose first turn has come }
local repeats = {}

--- A run of `name` in `uri` is starting with `runs` repeats (nil or 1: a single run): its turns are headed
--- "(run k/N)", as VS Code's Test Results heads them, the first run included.
function M.expect_runs(uri, name, runs)
  local n = tonumber(runs) or 1
  repeats[tostring(uri) .. '#' .. tostring(name)] = n > 1 and { total = n, seen = {} } or nil
end

--- What a run's first turn is headed with after the unit's name: " (run k/N)" for a repeated run, " (run k)"
--- for a later run whose count is not known here (started elsewhere), nothing for a single run.
local function which_run(params)
  local key = tostring(params.uri) .. '#' .. tostring(params.name)
  local rep = repeats[key]
  if rep then
    rep.seen[params.run] = true
    if vim.tbl_count(rep.seen) >= rep.total then
      repeats[key] = nil -- every run has started (they may run at once): a later single run is unnumbered
    end
    return (' (run %d/%d)'):format(params.run, rep.total)
  end
  return params.run > 1 and (' (run ' .. params.run .. ')') or ''
end

--- One turn (the params of evalens/runTurn): kept, and shown if the turns buffer is open.
function M.turn(params)
  local new = {}
  if params.seq == 0 then
    table.insert(new, '── ' .. tostring(params.name) .. which_run(params) .. ": the agent's turns ──")
  end
  vim.list_extend(new, turn_text(params))
  vim.list_extend(turn_lines, new)
  if #turn_lines > KEPT then
    turn_lines = vim.list_slice(turn_lines, #turn_lines - KEPT + 1, #turn_lines)
  end
  if turns_buf and vim.api.nvim_buf_is_valid(turns_buf) then
    local before = vim.api.nvim_buf_line_count(turns_buf)
    vim.bo[turns_buf].modifiable = true
    vim.api.nvim_buf_set_lines(turns_buf, -1, -1, false, new)
    vim.bo[turns_buf].modifiable = false
    follow(turns_buf, before)
  end
end

--- :EvalensTurns: a split with the turns streamed so far (it keeps filling while runs go on).
function M.open_turns()
  if not (turns_buf and vim.api.nvim_buf_is_valid(turns_buf)) then
    turns_buf = vim.api.nvim_create_buf(false, true)
    pcall(vim.api.nvim_buf_set_name, turns_buf, 'evalens turns')
    vim.bo[turns_buf].buftype = 'nofile'
    vim.bo[turns_buf].swapfile = false
  end
  vim.bo[turns_buf].modifiable = true
  vim.api.nvim_buf_set_lines(turns_buf, 0, -1, false, turn_lines)
  vim.bo[turns_buf].modifiable = false
  vim.cmd('split')
  vim.api.nvim_win_set_buf(0, turns_buf)
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(turns_buf), 0 }) -- the newest turn, followed
  return turns_buf
end

--- The "Show run" code lens names a client-side command (VS Code opens a webview): Neovim opens the buffer.
function M.register_lens_command(exec)
  vim.lsp.commands['evalens.showRun'] = function(command, ctx)
    local arg = command.arguments and command.arguments[1] or {}
    local bufnr = ctx and ctx.bufnr or vim.api.nvim_get_current_buf()
    if arg.uri then
      local target = vim.uri_to_bufnr(arg.uri)
      if vim.api.nvim_buf_is_loaded(target) then
        bufnr = target
      end
    end
    M.show(bufnr, arg.name, exec)
  end
end

return M
