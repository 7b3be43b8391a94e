// Package cli is the command-line convention gour's commands share, so that
// urinfo, urdemo and urbench behave alike:
//
//   - -h, -help and --help print the usage to standard output and exit 0
//     (Command.Parse returns ErrHelp after printing it);
//   - misuse — a bad flag, an unexpected argument, a malformed setting such
//     as ONEAPI_DEVICE_SELECTOR=bogus — prints "command: problem" and a
//     pointer to -h on standard error and exits 2 (a *UsageError);
//   - any other failure, finding no device included, prints
//     "command: problem" on standard error and exits 1.
//
// Exit maps an error to its status. The -device flag (Command.DeviceFlag)
// takes a selector in the syntax of ONEAPI_DEVICE_SELECTOR and wins over
// the variable; a Selector remembers where its text came from, so that
// NoDevice can say which selector matched nothing and why it was in force.
package cli
