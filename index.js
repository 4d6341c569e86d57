// The package's `main`, as in n8n's node starter. n8n does not load it: it finds the nodes and
// credentials through the `n8n` section of package.json (the built files in dist/).
