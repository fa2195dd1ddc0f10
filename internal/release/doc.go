// Package release holds the test of .ci/release, the script that builds
// the release archives, SHA256SUMS and its signature, and the .deb and
// .rpm (docs/install.md). It has no code the binaries link: the packaging
// tool is tools/release, a module of its own.
package release
