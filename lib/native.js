'use strict';
// The generated napi-rs loader; every native call goes through this module.
const native = require('../binding.js');

function liveHandles() {
  return native.liveHandles();
}

module.exports = { native, liveHandles };
