-- Headless driver for `claude plugin eval` cases (issue 38): each prompt.md of $EVALENS_CASES (paths joined by
-- newlines) is opened; with $EVALENS_RUN=1 its "▶ Run" lens is run as a user runs it (vim.lsp.codelens.run() on
-- the lens line, the lens picked from the vim.ui.select menu) and the verdict waited for; without it the verdict
-- the server restored from past results is waited for. For each case it writes the lenses, the verdict lens and
-- the buffer as drawn (lines and lens virtual text) to $EVALENS_NVIM_OUT; the pytest wrapper asserts.
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local out = { version = common.version(), cases = {} }
local timeout = tonumber(os.getenv('EVALENS_NVIM_TIMEOUT') or '300') * 1000
local run = os.getenv('EVALENS_RUN') == '1'
local VERDICTS = { '✓', '✗', '⚠', '≈', '○' }

common.run(out, function()
  common.pick_lens('▶ Run')
  for path in (os.getenv('EVALENS_CASES') or ''):gmatch('[^\n]+') do
    vim.cmd('edit ' .. vim.fn.fnameescape(path))
    local b = vim.api.nvim_get_current_buf()
    assert(common.wait_attached(b), 'the evalens client did not attach to ' .. path)
    local seen = { path = path }
    out.cases[#out.cases + 1] = seen
    assert(common.wait_title(b, '▶ Run', 60000), 'no "▶ Run" lens on ' .. path .. ': ' .. vim.inspect(common.titles(b)))
    seen.lenses_before = common.titles(b)
    for _, lens in ipairs(common.lenses(b)) do
      if lens.title == '▶ Run' then
        seen.lens_line = lens.line
      end
    end
    if run then
      vim.api.nvim_win_set_cursor(0, { seen.lens_line + 1, 0 })
      vim.lsp.codelens.run()
    end
    local found = vim.wait(timeout, function()
      if not run then
        vim.lsp.codelens.refresh() -- the restored verdict arrives with a later lens request
      end
      return common.title(b, VERDICTS) ~= nil
    end, run and 200 or 500)
    seen.lenses = common.lenses(b)
    assert(found, 'no verdict lens on ' .. path .. ': ' .. vim.inspect(seen.lenses))
    seen.verdict_lens = common.title(b, VERDICTS)
    local ns = common.lens_namespace(b)
    vim.wait(5000, function()
      return common.virtual_text(b, ns, seen.lens_line):find(seen.verdict_lens, 1, true) ~= nil
    end, 50)
    seen.rendered = common.virtual_text(b, ns, seen.lens_line)
    seen.screen = common.screen(b, { ns })
  end
end)
