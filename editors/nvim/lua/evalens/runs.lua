-- Repeats and focused re-runs from Neovim (docs/repeats.md#in-the-editor):
--   :EvalensRunRepeat [N]  the case under the cursor N times (default: settings evalens.run.repeats, else 5)
--   :EvalensRunFailed[!]   the cases whose last verdict was FAIL, FLAKY or ERROR: of this file (a UAAPS case
--                          file: its package); with ! of the whole workspace
--   :EvalensRunStale[!]    the cases whose verdict is stale or that never ran, likewise
--   :EvalensRunMatrix {engines} [{arms}]  every case of the package on each engine (and arm): a comparison
-- The server picks the units (the same ones `evalens run --failed` / `--stale` pick); the budget settings
-- (evalens.run.maxCost / maxTokens) apply to each of these runs.

local M = {}

local function lens_list(bufnr)
  local ok, found = pcall(vim.lsp.codelens.get, bufnr)
  return ok and found or {}
end

--- The `{uri, name}` of the unit whose "▶ Run" lens is nearest at or above `line` (0-based), or nil.
function M.unit_at(bufnr, line)
  local best
  for _, lens in ipairs(lens_list(bufnr)) do
    local cmd = lens.command
    local arg = cmd and cmd.arguments and cmd.arguments[1]
    if cmd and cmd.command == 'evalens.runCase' and type(arg) == 'table' and arg.name and arg.name ~= '*'
      and not arg.dryRun and lens.range.start.line <= line
      and (not best or lens.range.start.line > best.line) then
      best = { line = lens.range.start.line, uri = arg.uri, name = arg.name }
    end
  end
  return best
end

--- `evalens.run.repeats` from the settings the buffer's client was started with (nil when unset).
local function configured_repeats(bufnr)
  for _, client in ipairs(require('evalens').clients_of(bufnr)) do
    local settings = client.config and client.config.settings or {}
    local run = type(settings.evalens) == 'table' and settings.evalens.run or nil
    if type(run) == 'table' and tonumber(run.repeats) then
      return tonumber(run.repeats)
    end
  end
  return nil
end

local function report(result)
  local ui = require('evalens.ui')
  if type(result) ~= 'table' then
    return
  end
  local r = result
  local text = ('%s: %s'):format(r.name or '?', r.state or r.verdict or '?')
  if r.repeats then
    local rep = r.repeats
    text = text .. (' %d/%d passed'):format(rep.passed, rep.counted)
    if rep.interval and #rep.interval == 2 then
      text = text .. (' (95%% interval %d%%–%d%%)'):format(math.floor(rep.interval[1] * 100 + 0.5),
        math.floor(rep.interval[2] * 100 + 0.5))
    end
  end
  local reason = r.reason or ''
  if r.repeats then -- k/N is said above: "FLAKY 1/2 passed: flaky: passed 1/2 runs" said it twice (issue 45 #8)
    reason = reason:gsub('^flaky:%s*passed %S+ runs;?%s*', '')
  end
  if reason ~= '' then
    text = text .. ': ' .. reason
  end
  local level = (r.verdict == 'PASS' or r.verdict == 'SKIP') and vim.log.levels.INFO or vim.log.levels.WARN
  ui.show_lines(text, level)
end

--- :EvalensRunRepeat [N]
function M.run_repeat(bufnr, exec, count)
  local n = tonumber(count) or configured_repeats(bufnr) or 5
  if n < 1 or n > 100 or n ~= math.floor(n) then
    vim.notify('evalens: the number of runs must be a whole number from 1 to 100', vim.log.levels.ERROR)
    return
  end
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  local unit = M.unit_at(bufnr, line)
  if not unit then
    vim.notify('evalens: no eval case at the cursor (no "▶ Run" lens above it yet)', vim.log.levels.WARN)
    return
  end
  require('evalens.ui').echo(('evalens: running %s %d×…'):format(unit.name, n))
  require('evalens.show').expect_runs(unit.uri, unit.name, n) -- its turns are headed run k/N
  exec(bufnr, 'evalens.runCase', { uri = unit.uri, name = unit.name, runs = n }, report)
end

--- :EvalensRunFailed[!] / :EvalensRunStale[!]
function M.run_picked(bufnr, exec, select, workspace)
  local arg = { select = select }
  if not workspace then
    arg.uri = vim.uri_from_bufnr(bufnr)
  end
  require('evalens.authoring').confirm_batch(bufnr, exec, arg, function() -- several paid runs: ask, as lenses do
    require('evalens.ui').echo(('evalens: running the %s evals of %s…'):format(select,
      workspace and 'the workspace' or 'this file'))
    exec(bufnr, 'evalens.runAll', arg, require('evalens.ui').summarize_runs)
  end)
end

--- :EvalensRunMatrix {engines} [{arms}]: a whole comparison of this buffer's package (issue 41), the server's
--- evalens.runComparison (the runner's plan, as `evalens run --engine a,b --arms skill,no-skill` runs it); asks
--- first with the server's count (every unit once per engine, arm and run). The matrix's table is shown at the end.
function M.run_matrix(bufnr, exec, args)
  local engines, arms = args[1], args[2]
  if not engines or engines == '' then
    vim.notify('evalens: :EvalensRunMatrix {engines} [{arms}], e.g. :EvalensRunMatrix claude-code,codex skill,no-skill',
      vim.log.levels.WARN)
    return
  end
  local arg = { uri = vim.uri_from_bufnr(bufnr), engines = engines, arms = arms }
  local label = engines .. (arms and (' × ' .. arms) or '')
  local function start(question)
    if vim.fn.confirm(question, '&Run\n&Cancel', 2) ~= 1 then
      return
    end
    require('evalens.ui').echo(('evalens: comparing %s…'):format(label))
    exec(bufnr, 'evalens.runComparison', arg, function(result)
      if type(result) == 'table' and result.table then
        require('evalens.ui').show_lines(result.table, vim.log.levels.INFO)
      else
        vim.notify('evalens: the comparison was cancelled, or fewer than two of its batches ran', vim.log.levels.WARN)
      end
    end)
  end
  -- the server counts what would run (evalens.planComparison: an eval file's own units, each unit's runs);
  -- a comparison it cannot plan says why and does not start
  exec(bufnr, 'evalens.planComparison', arg, function(plan)
    if type(plan) ~= 'table' or not plan.agentRuns then
      return
    end
    start(('Compare %s: each of %d eval%s runs %d times (%d agent runs), each a real agent run that may cost money.'):format(
      label, plan.units, plan.units == 1 and '' or 's', plan.batches * plan.runs, plan.agentRuns))
  end)
end

--- Buffer-local user commands (called from on_attach).
function M.register(bufnr, exec)
  vim.api.nvim_buf_create_user_command(bufnr, 'EvalensRunRepeat', function(opts)
    M.run_repeat(bufnr, exec, opts.args ~= '' and opts.args or nil)
  end, { nargs = '?', desc = 'evalens: run the case under the cursor N times (default evalens.run.repeats)' })
  vim.api.nvim_buf_create_user_command(bufnr, 'EvalensRunMatrix', function(opts)
    M.run_matrix(bufnr, exec, opts.fargs)
  end, { nargs = '+', desc = "evalens: compare engines (and arms) over every case of this buffer's package" })
  for _, select in ipairs({ 'failed', 'stale' }) do
    local name = 'EvalensRun' .. select:sub(1, 1):upper() .. select:sub(2)
    vim.api.nvim_buf_create_user_command(bufnr, name, function(opts)
      M.run_picked(bufnr, exec, select, opts.bang)
    end, { bang = true, desc = ('evalens: re-run the %s cases of this file (!: of the workspace)'):format(select) })
  end
end

return M
