// The reference server's lint rules (scripts/lib/eslint-folder.mjs); `npm run lint` at the root runs them.
import { folderConfig } from '../scripts/lib/eslint-folder.mjs';

export default folderConfig({ anyAllowed: ['test/**/*.ts'] });
