-- Headless driver: "Optimize description with the trigger set…" through vim.lsp.buf.code_action() on the
-- description line of $EVALENS_SKILL_MD; the server runs the optimizer (real claude, scripted judge) and the
-- winner is offered through vim.ui.select: "Apply the rewrite" puts it in the buffer, unsaved. Exit code 0 =
-- the rewrite was offered and applied; the pytest wrapper asserts on the JSON written to $EVALENS_NVIM_OUT.
local out = { notes = {}, prompts = {} }

local function finish(code)
  local f = assert(io.open(os.getenv('EVALENS_NVIM_OUT'), 'w'))
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd((code == 0 and 'qall!') or 'cquit ' .. code)
end

local function fail(msg)
  out.error = msg
  finish(1)
end

local function attached(b)
  local all = vim.fn.has('nvim-0.10') == 1 and vim.lsp.get_clients({ bufnr = b }) or vim.lsp.buf_get_clients(b)
  for _, c in pairs(all) do
    if c.name == 'evalens' and c.initialized and vim.lsp.buf_is_attached(b, c.id) then
      return true
    end
  end
  return false
end

local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(out.notes, msg)
  return notify(msg, level, opts)
end

-- the code action menu (items are tables): pick ours; our question (strings): "Apply the rewrite"
vim.ui.select = function(items, opts, on_choice)
  if type(items[1]) == 'table' then
    out.actions = {}
    for i, item in ipairs(items) do
      local title = opts.format_item(item)
      table.insert(out.actions, title)
      if title == 'Optimize description with the trigger set…' then
        return on_choice(item, i)
      end
    end
    return on_choice(nil, nil)
  end
  table.insert(out.prompts, { prompt = opts.prompt, items = items })
  on_choice(items[1], 1)
end

vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('EVALENS_SKILL_MD')))
local b = vim.api.nvim_get_current_buf()
if not vim.wait(30000, function() return attached(b) end, 50) then
  return fail('the evalens client did not attach')
end
vim.wait(2000, function() return false end, 100) -- the first validation
vim.api.nvim_win_set_cursor(0, { 3, 2 }) -- the description line
vim.lsp.buf.code_action()
local done = vim.wait(480000, function()
  for _, n in ipairs(out.notes) do
    if n:find('description rewritten in the buffer', 1, true) or n:find('failed', 1, true) then
      return true
    end
  end
  return false
end, 200)
out.lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
out.modified = vim.bo[b].modified
if not done then
  return fail('no rewrite was applied; actions: ' .. vim.inspect(out.actions) .. ' notes: ' .. vim.inspect(out.notes))
end
finish(0)
