'use strict';
// The platform part of the addon's file and package names, as napi-rs's `--platform` build and
// the loader (main.js) spell it (hrwhash.<suffix>.node, hrwhash-<suffix>).
function platformSuffix() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const glibc = process.report?.getReport()?.header?.glibcVersionRuntime;
    if (arch === 'arm') return `linux-arm-${glibc ? 'gnueabihf' : 'musleabihf'}`;
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  if (platform === 'darwin') return `darwin-${arch}`;
  return `${platform}-${arch}`;
}

module.exports = { platformSuffix };
