// Loads a view with View.fromFile (or View.fromJson of the file's text with "json", of its bytes
// in a Buffer with "bytes") and prints its fingerprint (bench/view-memory.sh). HRWHASH_NODE names
// the package directory.
'use strict'
const { readFileSync } = require('fs')
const { View } = require(process.env.HRWHASH_NODE || '../../bindings-node')
const [path, how] = process.argv.slice(2)
const view =
  how === 'json'
    ? View.fromJson(readFileSync(path, 'utf8'))
    : how === 'bytes'
      ? View.fromJson(readFileSync(path))
      : View.fromFile(path)
console.log(view.fingerprint)
