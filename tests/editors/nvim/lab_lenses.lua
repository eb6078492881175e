-- Headless driver (no agent run in the editor): the arms lens on pdf-tools' SKILL.md and the trigger lens over
-- each query of greeter's trigger set, both restored from the package's reports. Each buffer is dumped as text:
-- its lines with the lens virtual text drawn after them, as Neovim shows it. Exit code 0 = both files showed
-- lenses; the pytest wrapper asserts on the JSON written to $EVALENS_NVIM_OUT.
local out = { steps = {} }

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

local function client_of(b)
  local all = vim.fn.has('nvim-0.10') == 1 and vim.lsp.get_clients({ bufnr = b }) or vim.lsp.buf_get_clients(b)
  for _, c in pairs(all) do
    if c.name == 'evalens' then
      return c
    end
  end
end

local function attached(b)
  local c = client_of(b)
  return c ~= nil and c.initialized and vim.lsp.buf_is_attached(b, c.id)
end

local function titles(b)
  local t = {}
  for _, lens in ipairs(vim.lsp.codelens.get(b)) do
    if lens.command then
      table.insert(t, { line = lens.range.start.line, title = lens.command.title })
    end
  end
  return t
end

local function has_title(b, prefix)
  for _, t in ipairs(titles(b)) do
    if t.title:sub(1, #prefix) == prefix then
      return true
    end
  end
  return false
end

-- the buffer as drawn: each line, then the lens virtual text Neovim puts after it
local function dump(b)
  local c = client_of(b)
  local ns = vim.lsp.codelens.__namespaces[c.id]
  local rows = {}
  for i, line in ipairs(vim.api.nvim_buf_get_lines(b, 0, -1, false)) do
    local virt = {}
    for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(b, ns, { i - 1, 0 }, { i - 1, -1 }, { details = true })) do
      for _, chunk in ipairs(mark[4].virt_text or {}) do
        table.insert(virt, chunk[1])
      end
    end
    local drawn = table.concat(virt)
    table.insert(rows, string.format('%3d  %s%s', i, line, drawn ~= '' and ('    ' .. drawn) or ''))
  end
  return rows
end

local function show(path, wanted, key)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local b = vim.api.nvim_get_current_buf()
  if not vim.wait(30000, function() return attached(b) end, 50) then
    return fail('the evalens client did not attach to ' .. path)
  end
  local seen = vim.wait(60000, function()
    vim.lsp.codelens.refresh()
    for _, w in ipairs(wanted) do
      if not has_title(b, w) then
        return false
      end
    end
    return true
  end, 500)
  out[key .. '_lenses'] = titles(b)
  if not seen then
    return fail('no ' .. vim.inspect(wanted) .. ' lens on ' .. path .. '; lenses: ' .. vim.inspect(titles(b)))
  end
  -- drawn: the virtual text follows the lenses a moment later
  vim.wait(5000, function()
    local text = table.concat(dump(b), '\n')
    for _, w in ipairs(wanted) do
      if not text:find(w, 1, true) then
        return false
      end
    end
    return true
  end, 100)
  out[key .. '_screen'] = dump(b)
  table.insert(out.steps, key)
  return true
end

if show(os.getenv('EVALENS_SKILL_MD'), { '▲ +40 pts', '▼ −20 pts' }, 'arms')
  and show(os.getenv('EVALENS_TRIGGER_SET'), { '✓ fired', '✗ stolen by' }, 'trigger') then
  finish(0)
end
