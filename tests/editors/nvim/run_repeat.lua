-- Headless driver: the current buffer is an eval case the fake model fails and passes in turn; run
-- `:EvalensRunRepeat 2` on its `name:` line, wait for the FLAKY lens, report what the editor shows.
-- Exit code 0 = every step happened; the pytest wrapper asserts on the JSON written to $EVALENS_NVIM_OUT.
local bufnr = vim.api.nvim_get_current_buf()
local out = { steps = {}, notes = {} }

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

local function titles()
  local t = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    if lens.command then
      table.insert(t, lens.command.title)
    end
  end
  return t
end

local function has_title(prefix)
  for _, t in ipairs(titles()) do
    if t:sub(1, #prefix) == prefix then
      return t
    end
  end
end

local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(out.notes, msg)
  return notify(msg, level, opts)
end

if not vim.wait(60000, function() return has_title('▶ Run eval') ~= nil end, 50) then
  return fail('no "▶ Run eval" lens; lenses: ' .. vim.inspect(titles()))
end
out.lenses_before = titles()
out.has_commands = vim.fn.exists(':EvalensRunRepeat') == 2 and vim.fn.exists(':EvalensRunFailed') == 2
  and vim.fn.exists(':EvalensRunStale') == 2
table.insert(out.steps, 'lenses')

vim.api.nvim_win_set_cursor(0, { 1, 0 })
vim.cmd('EvalensRunRepeat 2')
if not vim.wait(180000, function() return has_title('≈') ~= nil or has_title('✓') ~= nil or has_title('✗') ~= nil
  or has_title('⚠') ~= nil end, 100) then
  return fail('no verdict lens; lenses: ' .. vim.inspect(titles()) .. '; notes: ' .. vim.inspect(out.notes))
end
out.verdict_lens = has_title('≈') or has_title('✓') or has_title('✗') or has_title('⚠')
vim.wait(5000, function()
  for _, n in ipairs(out.notes) do
    if n:find('FLAKY', 1, true) and n:find('passed', 1, true) then
      return true
    end
  end
end, 50)
table.insert(out.steps, 'verdict')

-- the verdict failed: :EvalensRunFailed re-runs exactly it (the server answers with one result)
vim.cmd('EvalensRunFailed')
if not vim.wait(180000, function()
  for _, n in ipairs(out.notes) do
    if n:find('evalens: 1 run', 1, true) then
      return true
    end
  end
end, 100) then
  return fail(':EvalensRunFailed did not end; notes: ' .. vim.inspect(out.notes))
end
table.insert(out.steps, 'failed')
finish(0)
