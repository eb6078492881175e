-- Headless driver for the batch lenses' question (issue 45, item 10): on the package's eval config
-- ($EVALENS_CONFIG) the "▶ Run all evals" lens is run as a user runs it and the question declined, then run again
-- and accepted; then the case file $EVALENS_STALE_CASE is edited and saved, and the config's "↻ Run stale (1)"
-- lens is run and accepted. Then the typed commands (issue 45 #10): :EvalensRunAll declined; 01-alpha.yaml edited,
-- :EvalensRunStale! and :EvalensRunStale declined, then :EvalensRunStale accepted. vim.fn.confirm is answered from a queue and every question recorded; after the
-- declined one the requests the fake model got ($EVALENS_FAKE_LOG) are counted. The pytest wrapper asserts on
-- $EVALENS_NVIM_OUT (and on the reports the accepted batches wrote).
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local out = { version = common.version(), asked = {}, notes = {}, typed = {} }
local timeout = tonumber(os.getenv('EVALENS_NVIM_TIMEOUT') or '300') * 1000
local config = os.getenv('EVALENS_CONFIG')
local reports = vim.fn.fnamemodify(config, ':h') .. '/reports'

local answers = {}
vim.fn.confirm = function(question, choices, default)
  table.insert(out.asked, { question = question, choices = choices, default = default })
  return table.remove(answers, 1) or 0
end

-- requests the fake model has had (lines of its log)
local function requests()
  local f = io.open(os.getenv('EVALENS_FAKE_LOG'), 'r')
  if not f then
    return 0
  end
  local n = 0
  for _ in f:lines() do
    n = n + 1
  end
  f:close()
  return n
end

local function report_count()
  return #vim.fn.glob(reports .. '/*.json', false, true)
end

-- run the lens of b titled `title` (a prefix) as a user does: cursor on its line, codelens.run(), the lens
-- picked from the menu when the line has several; answer its question with `answer` (1 Run, 2 Cancel)
local function click(b, title, answer)
  assert(common.wait_title(b, title, 60000), 'no "' .. title .. '" lens: ' .. vim.inspect(common.titles(b)))
  local full = common.title(b, title)
  for _, lens in ipairs(common.lenses(b)) do
    if lens.title == full then
      vim.api.nvim_win_set_cursor(0, { lens.line + 1, 0 })
    end
  end
  common.pick_lens(full)
  answers = { answer }
  local before = #out.asked
  vim.lsp.codelens.run()
  assert(vim.wait(30000, function() return #out.asked > before end, 50),
    'no question for "' .. full .. '"; notes: ' .. vim.inspect(out.notes))
  return full
end

-- the units the last question named (its "• name" lines)
local function named()
  local n = 0
  for _ in out.asked[#out.asked].question:gmatch('\n• ') do
    n = n + 1
  end
  return n
end

-- wait until each unit the question named has written its report (a UAAPS case run from the editor writes one
-- report of its own) and the config's lenses are idle again ("▶ Run all evals", not "■ Cancel all")
local function batch_done(b, reports_before)
  local wanted = reports_before + named()
  assert(vim.wait(timeout, function()
    return report_count() >= wanted
  end, 200), ('%d of %d reports; notes: %s'):format(report_count(), wanted, vim.inspect(out.notes)))
  assert(vim.wait(60000, function()
    require('evalens').refresh(b)
    return common.title(b, '▶ Run all evals') ~= nil
  end, 300), 'the lenses did not come back: ' .. vim.inspect(common.titles(b)))
end

common.run(out, function()
  common.record_notes(out.notes)
  vim.cmd('edit ' .. vim.fn.fnameescape(config))
  local b = vim.api.nvim_get_current_buf()
  assert(common.wait_attached(b), 'the evalens client did not attach to ' .. config)

  -- 1. declined: nothing starts
  out.run_all = click(b, '▶ Run all evals', 2)
  vim.wait(3000)
  out.requests_after_decline = requests()
  out.reports_after_decline = report_count()
  out.lenses_after_decline = common.titles(b)

  -- 2. accepted: the batch runs
  click(b, '▶ Run all evals', 1)
  batch_done(b, 0)
  out.reports_after_run_all = report_count()
  out.requests_after_run_all = requests()

  -- 3. one case edited and saved: "↻ Run stale (1)" asks for it alone
  local stale_case = os.getenv('EVALENS_STALE_CASE')
  vim.cmd('edit ' .. vim.fn.fnameescape(stale_case))
  local c = vim.api.nvim_get_current_buf()
  local lines = vim.api.nvim_buf_get_lines(c, 0, -1, false)
  for i, line in ipairs(lines) do
    if line:find('prompt:', 1, true) then
      vim.api.nvim_buf_set_lines(c, i - 1, i, false, { (line:gsub('Say', 'Now say')) })
    end
  end
  vim.cmd('write')
  vim.cmd('edit ' .. vim.fn.fnameescape(config))
  assert(vim.wait(60000, function()
    require('evalens').refresh(b)
    return common.title(b, '↻ Run stale') ~= nil
  end, 300), 'no "↻ Run stale" lens after the edit: ' .. vim.inspect(common.titles(b)))
  out.run_stale = click(b, '↻ Run stale', 1)
  batch_done(b, out.reports_after_run_all)

  -- 4. the typed batch commands ask as the lenses do; declined, nothing starts
  local function typed(command, answer)
    answers = { answer }
    local before = #out.asked
    vim.cmd(command)
    assert(vim.wait(30000, function() return #out.asked > before end, 50),
      'no question for :' .. command .. '; notes: ' .. vim.inspect(out.notes))
    table.insert(out.typed, { command = command, question = out.asked[#out.asked].question })
  end
  local reports_before, requests_before = report_count(), requests()
  typed('EvalensRunAll', 2)
  local alpha = vim.fn.fnamemodify(stale_case, ':h') .. '/01-alpha.yaml'
  vim.cmd('edit ' .. vim.fn.fnameescape(alpha))
  local a = vim.api.nvim_get_current_buf()
  assert(common.wait_attached(a), 'the evalens client did not attach to ' .. alpha)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(a, 0, -1, false)) do
    if line:find('prompt:', 1, true) then
      vim.api.nvim_buf_set_lines(a, i - 1, i, false, { (line:gsub('Say', 'Now say')) })
    end
  end
  vim.cmd('write')
  assert(vim.wait(60000, function() return common.title(a, '▶ Run eval') ~= nil end, 200),
    'no lenses on ' .. alpha .. ': ' .. vim.inspect(common.titles(a)))
  typed('EvalensRunStale!', 2)
  typed('EvalensRunStale', 2)
  vim.wait(3000)
  out.requests_after_typed_declines = requests() - requests_before
  out.reports_after_typed_declines = report_count() - reports_before
  typed('EvalensRunStale', 1)
  assert(vim.wait(timeout, function() return report_count() > reports_before end, 200),
    'no report after :EvalensRunStale; notes: ' .. vim.inspect(out.notes))
  out.reports_after_typed_run = report_count() - reports_before
end)
