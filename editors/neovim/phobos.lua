-- phobos-lsp in Neovim 0.7 and later (docs/editors.md): `.ph` files get the filetype `phobos`,
-- and the first one opened starts the language server, which every later one shares.
-- Load it from your init.lua with `dofile("/path/to/phobos.lua")`, or copy it into your config.
-- Set vim.g.phobos_lsp_cmd beforehand to run the server some other way (a list of words).
local client_id = nil

local function attach()
  if client_id == nil or vim.lsp.get_client_by_id(client_id) == nil then
    client_id = vim.lsp.start_client({
      name = "phobos-lsp",
      cmd = vim.g.phobos_lsp_cmd or { "phobos-lsp" },
      root_dir = vim.fn.getcwd(),
      -- what phobos-check takes as --arch and -D, for example
      -- init_options = { arch = "sm_90", defines = { BLOCK = 128 } },
      init_options = vim.g.phobos_lsp_options,
    })
  end
  if client_id ~= nil then
    vim.lsp.buf_attach_client(0, client_id)
  end
end

vim.cmd([[autocmd BufRead,BufNewFile *.ph setfiletype phobos]])
vim.api.nvim_create_autocmd("FileType", { pattern = "phobos", callback = attach })
