-- Headless driver: "Optimize description with the trigger set…" through vim.lsp.buf.code_action() on the
-- description line of $EVALENS_SKILL_MD; the server runs the optimizer (real claude, scripted judge) and the
-- winner is offered through vim.ui.select: "Apply the rewrite" puts it in the buffer, unsaved. Exit code 0 =
-- the rewrite was offered and applied; the pytest wrapper asserts on the JSON written to $EVALENS_NVIM_OUT.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local out = { notes = {}, prompts = {} }
local finish, fail = common.finisher(out)

common.record_notes(out.notes)

-- the code action menu (items are tables): pick ours; our question (strings): "Apply the rewrite"
vim.ui.select = function(items, opts, on_choice)
  if type(items[1]) == 'table' then
    out.actions = {}
    return common.choose(items, opts, on_choice, 'Optimize description with the trigger set…', out.actions)
  end
  table.insert(out.prompts, { prompt = opts.prompt, items = items })
  on_choice(items[1], 1)
end

vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('EVALENS_SKILL_MD')))
local b = vim.api.nvim_get_current_buf()
if not common.wait_attached(b) then
  return fail('the evalens client did not attach')
end
vim.wait(2000, function() return false end, 100) -- the first validation
vim.api.nvim_win_set_cursor(0, { 3, 2 }) -- the description line
vim.lsp.buf.code_action()
local done = vim.wait(480000, function()
  return common.noted(out.notes, 'description rewritten in the buffer') or common.noted(out.notes, 'failed')
end, 200)
out.lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
out.modified = vim.bo[b].modified
if not done then
  return fail('no rewrite was applied; actions: ' .. vim.inspect(out.actions) .. ' notes: ' .. vim.inspect(out.notes))
end
finish(0)
