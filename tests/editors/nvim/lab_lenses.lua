-- Headless driver (no agent run in the editor): the arms lens on pdf-tools' SKILL.md and the trigger lens over
-- each query of greeter's trigger set, both restored from the package's reports. Each buffer is dumped as text:
-- its lines with the lens virtual text drawn after them, as Neovim shows it. Exit code 0 = both files showed
-- lenses; the pytest wrapper asserts on the JSON written to $EVALENS_NVIM_OUT.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local out = { steps = {} }
local finish, fail = common.finisher(out)

-- the buffer as drawn: each line, then the lens virtual text Neovim puts after it
local function dump(b)
  return common.screen(b, { common.lens_namespace(b) })
end

local function show(path, wanted, key)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local b = vim.api.nvim_get_current_buf()
  if not common.wait_attached(b) then
    return fail('the evalens client did not attach to ' .. path)
  end
  local seen = vim.wait(60000, function()
    vim.lsp.codelens.refresh()
    for _, w in ipairs(wanted) do
      if not common.title(b, w) then
        return false
      end
    end
    return true
  end, 500)
  out[key .. '_lenses'] = common.lenses(b)
  if not seen then
    return fail('no ' .. vim.inspect(wanted) .. ' lens on ' .. path .. '; lenses: ' .. vim.inspect(common.lenses(b)))
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
