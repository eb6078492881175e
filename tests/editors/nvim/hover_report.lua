-- Headless driver (no agent): the hover on the `name` of a case whose last run a report on disk holds, shown
-- as a user does with K, and what its float draws (issue 45 #8: Neovim 0.7.2 drew `Report: [path](     )`).
-- Writes the server's Markdown and the float as drawn to $EVALENS_NVIM_OUT; the pytest wrapper asserts.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local bufnr = vim.api.nvim_get_current_buf()
local out = { version = common.version() }
local finish, fail = common.finisher(out)

vim.o.columns, vim.o.lines = 220, 50 -- wide enough that no hover line wraps

if not common.wait_attached(bufnr) then
  return fail('the evalens client did not start and attach')
end
vim.api.nvim_win_set_cursor(0, { 1, 1 }) -- on `name`

local markdown = ''
vim.wait(30000, function()
  local params = vim.lsp.util.make_position_params(0, common.attached(bufnr).offset_encoding)
  for _, reply in pairs(vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', params, 10000) or {}) do
    local contents = reply.result and reply.result.contents
    if type(contents) == 'table' and type(contents.value) == 'string' then
      markdown = contents.value
    end
  end
  return markdown:find('Report:', 1, true) ~= nil
end, 200)
out.markdown = markdown
if not markdown:find('Report:', 1, true) then
  return fail('the hover has no report: ' .. markdown)
end

vim.lsp.buf.hover()
if not vim.wait(10000, function() return #common.floats() > 0 end, 50) then
  return fail('the hover float did not open')
end
vim.wait(300)
local win = common.floats()[1]
out.buffer_lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
out.conceallevel = vim.wo[win].conceallevel
out.drawn = common.float_drawn(win)
finish(0)
