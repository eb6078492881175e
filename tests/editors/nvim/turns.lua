-- Headless driver (no server): :EvalensTurns opens at the newest turn and follows new ones like `tail -f`,
-- unless the user scrolled up to read (issue 27 #10). Writes what it saw to $EVALENS_NVIM_OUT.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local show = require('evalens.show')
local out = {}
local function turn(run, seq, text)
  show.turn({ uri = 'file:///p/a.yaml', name = 'greet', run = run, seq = seq, kind = 'text', text = text })
end

common.run(out, function()
  for i = 0, 59 do
    turn(1, i, 'turn ' .. i)
  end
  local buf = show.open_turns()
  local win = vim.api.nvim_get_current_win()
  local count = vim.api.nvim_buf_line_count(buf)
  out.opened_at = vim.api.nvim_win_get_cursor(win)[1]
  out.opened_count = count
  -- what the window shows when it opens (the cursor's line marked), for the docs' capture
  out.screen = {}
  for l = vim.fn.line('w0', win), vim.fn.line('w$', win) do
    local mark = l == out.opened_at and '> ' or '  '
    table.insert(out.screen, string.format('%s%3d  %s', mark, l, vim.api.nvim_buf_get_lines(buf, l - 1, l, false)[1]))
  end
  turn(2, 0, 'second run')
  out.followed_line = vim.api.nvim_buf_get_lines(buf, vim.api.nvim_win_get_cursor(win)[1] - 1, -1, false)[1]
  vim.api.nvim_win_set_cursor(win, { 3, 0 }) -- the user scrolls up to read
  turn(2, 1, 'more')
  out.stayed_at = vim.api.nvim_win_get_cursor(win)[1]
end)
