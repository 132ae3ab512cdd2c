// The Node version check runs before anything else is loaded (imports run in this order).
import './boot/node-guard';
import './server';
