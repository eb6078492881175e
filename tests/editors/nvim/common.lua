-- What the headless drivers of the Neovim e2e tests (tests/editors/nvim/*.lua, started by
-- tests/editors/nvim_session.py) share: the result file and how a driver ends, the evalens client, the lenses,
-- what the user is told, the buffer as drawn. A driver loads it from its own folder with
--   local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local M = {}

-- the running Neovim as the tests name it: "0.7", "0.11"
function M.version()
  return tostring(vim.version().major) .. '.' .. tostring(vim.version().minor)
end

-- `out` as JSON in $EVALENS_NVIM_OUT, where the pytest wrapper reads it
function M.write(out)
  local f = assert(io.open(os.getenv('EVALENS_NVIM_OUT'), 'w'))
  f:write(vim.fn.json_encode(out))
  f:close()
end

-- finish(code): write `out` and quit with `code` (0 = every step happened); fail(msg): say why in out.error
-- and quit with 1. A driver returns right after either.
function M.finisher(out)
  local function finish(code)
    M.write(out)
    vim.cmd((code == 0 and 'qall!') or 'cquit ' .. code)
  end
  local function fail(msg)
    out.error = msg
    finish(1)
  end
  return finish, fail
end

-- main() protected: an error in it goes into out.error with its traceback; then write `out` and quit (1 on error)
function M.run(out, main)
  local ok, err = xpcall(main, debug.traceback)
  if not ok then
    out.error = tostring(err)
  end
  M.write(out)
  vim.cmd(ok and 'qall!' or 'cquit 1')
end

-- the initialised evalens client attached to buffer b, or nil
function M.attached(b)
  local all = vim.fn.has('nvim-0.10') == 1 and vim.lsp.get_clients({ bufnr = b }) or vim.lsp.buf_get_clients(b)
  for _, c in pairs(all) do
    if c.name == 'evalens' and c.initialized and vim.lsp.buf_is_attached(b, c.id) then
      return c
    end
  end
end

-- wait (30 s unless told) until the evalens client is attached to buffer b; whether it is
function M.wait_attached(b, ms)
  return vim.wait(ms or 30000, function() return M.attached(b) ~= nil end, 50)
end

-- the code lenses of buffer b that have a command, as { line = 0-based line, title = title }
function M.lenses(b)
  local t = {}
  for _, lens in ipairs(vim.lsp.codelens.get(b) or {}) do
    if lens.command then
      table.insert(t, { line = lens.range.start.line, title = lens.command.title })
    end
  end
  return t
end

-- their titles, top to bottom
function M.titles(b)
  local t = {}
  for _, lens in ipairs(M.lenses(b)) do
    table.insert(t, lens.title)
  end
  return t
end

-- the title of the first lens of b that starts with one of `prefixes` (a string, or a list tried in its order)
function M.title(b, prefixes)
  for _, prefix in ipairs(type(prefixes) == 'table' and prefixes or { prefixes }) do
    for _, t in ipairs(M.titles(b)) do
      if t:sub(1, #prefix) == prefix then
        return t
      end
    end
  end
end

-- wait (30 s unless told) until a lens of b starts with `prefixes` (as M.title); whether one did
function M.wait_title(b, prefixes, ms)
  return vim.wait(ms or 30000, function() return M.title(b, prefixes) ~= nil end, 50)
end

-- answer a vim.ui.select whose items opts.format_item names: the item titled `title` (nothing when none is);
-- every title offered also goes into the list `offered` when one is given
function M.choose(items, opts, on_choice, title, offered)
  for i, item in ipairs(items) do
    local shown = opts.format_item(item)
    if offered then
      table.insert(offered, shown)
    end
    if shown == title then
      return on_choice(item, i)
    end
  end
  on_choice(nil, nil)
end

-- codelens.run() on a line of several lenses asks vim.ui.select: from now on pick `title`, as a user would
function M.pick_lens(title)
  vim.ui.select = function(items, opts, on_choice)
    M.choose(items, opts, on_choice, title)
  end
end

-- what the user is told: every vim.notify message also goes into the list `notes`
function M.record_notes(notes)
  local notify = vim.notify
  vim.notify = function(msg, level, opts)
    table.insert(notes, msg)
    return notify(msg, level, opts)
  end
end

-- whether a message of `notes` contains every one of the strings given
function M.noted(notes, ...)
  local wanted = { ... }
  for _, n in ipairs(notes) do
    local all = true
    for _, w in ipairs(wanted) do
      all = all and n:find(w, 1, true) ~= nil
    end
    if all then
      return true
    end
  end
  return false
end

-- wait (15 s unless told) until a buffer other than b is current (a command opened it); whether one is
function M.wait_other_buffer(b, ms)
  return vim.wait(ms or 15000, function() return vim.api.nvim_get_current_buf() ~= b end, 50)
end

-- back to buffer b alone in its window (after a command opened another), the cursor on line `line` if given
function M.back_to(b, line)
  vim.cmd('only')
  vim.api.nvim_set_current_buf(b)
  if line then
    vim.api.nvim_win_set_cursor(0, { line, 0 })
  end
end

-- wait (15 s) until a Markdown buffer other than b is current (a run the "Show run" lens opened); whether one is
function M.wait_markdown_opened(b)
  return vim.wait(15000, function()
    local current = vim.api.nvim_get_current_buf()
    return current ~= b and vim.bo[current].filetype == 'markdown'
  end, 50)
end

-- the namespace the evalens client's lenses of b are drawn in
function M.lens_namespace(b)
  return vim.lsp.codelens.__namespaces[M.attached(b).id]
end

-- the virtual text namespace ns draws after line `line` (0-based) of buffer b
function M.virtual_text(b, ns, line)
  local text = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(b, ns, { line, 0 }, { line, -1 }, { details = true })) do
    for _, chunk in ipairs(mark[4].virt_text or {}) do
      table.insert(text, chunk[1])
    end
  end
  return table.concat(text)
end

-- the buffer as drawn: each line, then the virtual text Neovim puts after it from the namespaces `spaces`
-- (every named namespace unless told: lenses, diagnostics)
function M.screen(b, spaces)
  if not spaces then
    spaces = {}
    for _, ns in pairs(vim.api.nvim_get_namespaces()) do
      table.insert(spaces, ns)
    end
    table.sort(spaces)
  end
  local rows = {}
  for i, line in ipairs(vim.api.nvim_buf_get_lines(b, 0, -1, false)) do
    local virt = {}
    for _, ns in ipairs(spaces) do
      table.insert(virt, M.virtual_text(b, ns, i - 1))
    end
    local drawn = table.concat(virt)
    table.insert(rows, string.format('%3d  %s%s', i, line, drawn ~= '' and ('    ' .. drawn) or ''))
  end
  return rows
end

-- the floating windows open now (a hover, a signature help), oldest first
function M.floats()
  local found = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      table.insert(found, w)
    end
  end
  return found
end

-- the floating window `win` as drawn, one string per screen row, trailing blanks cut: concealed text (Markdown
-- markers, HTML entities) drawn as Neovim draws it, which the buffer's lines do not show. A headless Neovim
-- composes no floats onto its screen, so the window is docked at the left first (`wincmd H`, its width, height
-- and window options kept), then its cells are read; it stays docked.
function M.float_drawn(win)
  local width, height = vim.api.nvim_win_get_width(win), vim.api.nvim_win_get_height(win)
  vim.api.nvim_set_current_win(win)
  vim.cmd('wincmd H')
  vim.api.nvim_win_set_width(win, width)
  vim.cmd('redraw!')
  local top, left = unpack(vim.fn.win_screenpos(win))
  local rows = {}
  for r = top, top + height - 1 do
    local cells = {}
    for c = left, left + width - 1 do
      table.insert(cells, vim.fn.screenstring(r, c))
    end
    rows[#rows + 1] = (table.concat(cells):gsub('%s+$', ''))
  end
  return rows
end

return M
