/** jest's global teardown: see engine-run.js. */
module.exports = require("./engine-run").teardown;
