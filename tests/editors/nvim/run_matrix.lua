-- Headless driver for :EvalensRunMatrix (issue 41): in the case file $EVALENS_CASE_FILE, `:EvalensRunMatrix
-- $EVALENS_ENGINES $EVALENS_ARMS` is typed as a user types it; the question it asks is answered "Run" (recorded),
-- and the matrix table it shows at the end (a float) is waited for and recorded with the notes. The pytest
-- wrapper asserts on $EVALENS_NVIM_OUT.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local out = { version = common.version(), asked = {} }
local timeout = tonumber(os.getenv('EVALENS_NVIM_TIMEOUT') or '600') * 1000

common.run(out, function()
  vim.fn.confirm = function(question, choices)
    table.insert(out.asked, { question = question, choices = choices })
    return 1
  end
  local notes = {}
  common.record_notes(notes)
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('EVALENS_CASE_FILE')))
  local b = vim.api.nvim_get_current_buf()
  assert(common.wait_attached(b), 'the evalens client did not attach')
  vim.cmd(('EvalensRunMatrix %s %s'):format(os.getenv('EVALENS_ENGINES'), os.getenv('EVALENS_ARMS')))
  local shown = vim.wait(timeout, function() return #common.floats() > 0 end, 200)
  out.notes = notes
  assert(shown, 'no table was shown: ' .. vim.inspect(notes))
  local win = common.floats()[1]
  out.table = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
end)
