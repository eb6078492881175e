-- Headless driver: the current buffer is an eval case the fake model fails and passes in turn; run
-- `:EvalensRunRepeat 2` on its `name:` line, wait for the FLAKY lens, report what the editor shows.
-- Exit code 0 = every step happened; the pytest wrapper asserts on the JSON written to $EVALENS_NVIM_OUT.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local bufnr = vim.api.nvim_get_current_buf()
local out = { steps = {}, notes = {} }
local finish, fail = common.finisher(out)
local verdicts = { '≈', '✓', '✗', '⚠' }

common.record_notes(out.notes)

if not common.wait_title(bufnr, '▶ Run eval', 60000) then
  return fail('no "▶ Run eval" lens; lenses: ' .. vim.inspect(common.titles(bufnr)))
end
out.lenses_before = common.titles(bufnr)
out.has_commands = vim.fn.exists(':EvalensRunRepeat') == 2 and vim.fn.exists(':EvalensRunFailed') == 2
  and vim.fn.exists(':EvalensRunStale') == 2
table.insert(out.steps, 'lenses')

vim.api.nvim_win_set_cursor(0, { 1, 0 })
vim.cmd('EvalensRunRepeat 2')
if not vim.wait(180000, function() return common.title(bufnr, verdicts) ~= nil end, 100) then
  return fail('no verdict lens; lenses: ' .. vim.inspect(common.titles(bufnr)) .. '; notes: ' .. vim.inspect(out.notes))
end
out.verdict_lens = common.title(bufnr, verdicts)
vim.wait(5000, function() return common.noted(out.notes, 'FLAKY', 'passed') end, 50)
table.insert(out.steps, 'verdict')

-- :EvalensTurns heads each run's turns "(run k/2)", the first run included, as VS Code's Test Results does
local function turn_heads()
  local heads = {}
  vim.cmd('EvalensTurns')
  for _, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    if line:sub(1, #'── ') == '── ' then
      table.insert(heads, line)
    end
  end
  common.back_to(bufnr, 1)
  return heads
end
out.turn_heads = turn_heads()

-- the verdict failed: :EvalensRunFailed asks first (a batch of paid runs), then re-runs exactly it (the server
-- answers with one result)
vim.fn.confirm = function(question)
  out.failed_question = question
  return 1
end
vim.cmd('EvalensRunFailed')
if not vim.wait(180000, function() return common.noted(out.notes, 'evalens: 1 run') end, 100) then
  return fail(':EvalensRunFailed did not end; notes: ' .. vim.inspect(out.notes))
end
table.insert(out.steps, 'failed')
out.turn_heads_after_failed = turn_heads() -- the single re-run is unnumbered again
finish(0)
