// A wall clock set ahead, for end-to-end tests of the built CLI: a test starts the companion as
// `node --import <this file's URL>?offset=<ms> dist/companion/cli.mjs …`, and in that process
// Date.now() answers the real time plus <ms>, as on a machine whose clock says so. Timers still
// run in real time. The companion's scheduler and digest read the wall clock through Date.now
// (companion/cli.ts's system clock), so a test can start it "after" a slot instead of waiting
// for a real minute boundary. It lives in test/ and only a `--import` of it turns it on: nothing
// in the shipped CLI reads it.
const offset = Number(new URL(import.meta.url).searchParams.get('offset'));
if (!Number.isSafeInteger(offset)) {
  throw new Error(`shifted-clock.mjs: ?offset=<integer ms> is required (${import.meta.url})`);
}
const realNow = Date.now.bind(Date);
Date.now = () => realNow() + offset;
