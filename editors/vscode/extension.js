// Starts phobos-lsp for .ph files (docs/editors.md). The server reads `arch` and `defines` from
// its initialization options, taken here from the `phobos.*` settings.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const settings = vscode.workspace.getConfiguration("phobos");
  const [command, ...args] = settings.get("server.command", ["phobos-lsp"]);
  client = new LanguageClient(
    "phobos",
    "Phobos",
    { command, args },
    {
      documentSelector: [{ scheme: "file", language: "phobos" }, { scheme: "untitled", language: "phobos" }],
      initializationOptions: { arch: settings.get("arch"), defines: settings.get("defines") },
    },
  );
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
