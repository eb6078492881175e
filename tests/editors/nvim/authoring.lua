-- Headless driver (no agent): "Save and run" on a case with unsaved edits, through its "Dry run" lens (a dry run
-- reads the saved file, so its plan shows which version ran), then "＋ New eval case" on the skill's SKILL.md.
-- Exit code 0 = every step happened; the pytest wrapper asserts on the JSON written to $EVALENS_NVIM_OUT.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local bufnr = vim.api.nvim_get_current_buf()
local out = { steps = {}, prompts = {}, messages = {}, notes = {} }
local finish, fail = common.finisher(out)

local function has_title(b, title)
  return vim.tbl_contains(common.titles(b), title)
end

if not common.wait_attached(bufnr) then
  return fail('the evalens client did not start and attach')
end
if not vim.wait(30000, function() return has_title(bufnr, 'Dry run') end, 50) then
  return fail('no "Dry run" lens; lenses: ' .. vim.inspect(common.titles(bufnr)))
end
table.insert(out.steps, 'lenses')

-- what the user is told: multi-line messages (the dry run's plan) and notifications
require('evalens.ui').show_lines = function(text)
  table.insert(out.messages, text)
end
common.record_notes(out.notes)

-- vim.ui.select: codelens.run() asks which lens of the line (pick "Dry run"), then our question (pick `answer`)
local answer
vim.ui.select = function(items, opts, on_choice)
  if type(items[1]) == 'table' then
    return common.choose(items, opts, on_choice, 'Dry run')
  end
  table.insert(out.prompts, { prompt = opts.prompt, items = items })
  for i, item in ipairs(items) do
    if item == answer then
      return on_choice(item, i)
    end
  end
  on_choice(nil, nil)
end

local function dry_run_with(choice)
  answer = choice
  local before = #out.messages
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.lsp.codelens.run()
  if not vim.wait(60000, function() return #out.messages > before end, 50) then
    fail('no dry-run message after choosing ' .. choice .. '; notes: ' .. vim.inspect(out.notes))
  end
  return out.messages[#out.messages]
end

-- an unsaved edit: the first check's text
local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
for i, line in ipairs(lines) do
  if line:find('"EXTRACTED"', 1, true) then
    vim.api.nvim_buf_set_lines(bufnr, i - 1, i, false, { (line:gsub('EXTRACTED', 'SAVED-EDIT')) })
    break
  end
end
out.modified_before = vim.bo[bufnr].modified

out.run_saved = dry_run_with('Run the saved file')
out.modified_after_run_saved = vim.bo[bufnr].modified
out.save_and_run = dry_run_with('Save and run')
out.modified_after_save = vim.bo[bufnr].modified
table.insert(out.steps, 'save-and-run')

-- :EvalensRunAll with an unsaved edit asks too; dismissing the question runs nothing
vim.api.nvim_buf_set_lines(bufnr, 0, 0, false, { '# an unsaved comment' })
answer = nil
vim.cmd('EvalensRunAll')
out.run_all_dismissed = vim.tbl_contains(out.notes, 'evalens: not run (unsaved changes)')
vim.cmd('silent! undo')

-- "＋ New eval case" on the skill's SKILL.md: a new case file, the cursor on its prompt
vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('EVALENS_SKILL_MD')))
local skill = vim.api.nvim_get_current_buf()
if not vim.wait(30000, function() return common.attached(skill) and has_title(skill, '＋ New eval case') end, 50) then
  return fail('no "＋ New eval case" lens on SKILL.md; lenses: ' .. vim.inspect(common.titles(skill)))
end
vim.api.nvim_win_set_cursor(0, { 1, 0 })
vim.lsp.codelens.run()
if not common.wait_other_buffer(skill, 30000) then
  return fail('the new case did not open; notes: ' .. vim.inspect(out.notes))
end
local new = vim.api.nvim_get_current_buf()
local cursor = vim.api.nvim_win_get_cursor(0)
out.new_case = {
  name = vim.api.nvim_buf_get_name(new),
  lines = vim.api.nvim_buf_get_lines(new, 0, -1, false),
  cursor = { cursor[1], cursor[2] },
}
table.insert(out.steps, 'new-case')
finish(0)
