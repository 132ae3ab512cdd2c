// The Node version check runs before anything else is loaded (imports run in this order).
import './boot/node-guard';
// V8 flags NODE_OPTIONS refuses, set before the application allocates anything.
import './perf/v8-flags';
import './server';
