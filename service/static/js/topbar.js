// Every page's top bar: the account links (static/js/account.js).

import { startTopbar } from "./account.js";

startTopbar();
