// The scripts' lint rules (lib/eslint-folder.mjs); `npm run lint` at the root runs them.
import { folderConfig } from './lib/eslint-folder.mjs';

export default folderConfig();
