-- Headless driver (no agent): the hover on the value of `target: skill:pdf-tools` (line 3 of the case opened),
-- shown as a user does with K, and what its float draws (issue 27 #10: it drew `skills/\<name\>/SKILL.md`).
-- Writes the server's Markdown and the float as drawn to $EVALENS_NVIM_OUT; the pytest wrapper asserts.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local bufnr = vim.api.nvim_get_current_buf()
local out = { version = common.version() }
local finish, fail = common.finisher(out)

-- wide enough that no hover line wraps: each line of the Markdown is one row of the float
vim.o.columns, vim.o.lines = 220, 50

if not common.wait_attached(bufnr) then
  return fail('the evalens client did not start and attach')
end
local line = vim.api.nvim_buf_get_lines(bufnr, 2, 3, false)[1]
if line ~= 'target: skill:pdf-tools' then
  return fail('line 3 is not the target: ' .. tostring(line))
end
vim.api.nvim_win_set_cursor(0, { 3, #'target: skill:' }) -- on the value

-- the server's Markdown, once the package's index knows the skill (its path in the hover)
local markdown = ''
vim.wait(30000, function()
  local params = vim.lsp.util.make_position_params(0, common.attached(bufnr).offset_encoding)
  for _, reply in pairs(vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', params, 10000) or {}) do
    local contents = reply.result and reply.result.contents
    if type(contents) == 'table' and type(contents.value) == 'string' then
      markdown = contents.value
    end
  end
  return markdown:find('SKILL.md`', 1, true) ~= nil
end, 200)
out.markdown = markdown
if not markdown:find('SKILL.md`', 1, true) then
  return fail('the hover does not name the skill: ' .. markdown)
end

-- K: the float, its buffer's lines and what it draws
vim.lsp.buf.hover()
if not vim.wait(10000, function() return #common.floats() > 0 end, 50) then
  return fail('the hover float did not open')
end
vim.wait(300) -- the float's highlighting (syntax on 0.7, tree-sitter on 0.11) is set up as it opens
local win = common.floats()[1]
out.buffer_lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
out.conceallevel = vim.wo[win].conceallevel
out.drawn = common.float_drawn(win)
finish(0)
