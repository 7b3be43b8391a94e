// Package report presents a driver comparison record (package record): a
// Markdown report, a bar chart per metric in SVG and PNG (drawn with
// gonum.org/v1/plot), and one self-contained HTML page holding the tables
// and every chart inlined. The conformance matrix lists first the cases
// whose result differs between drivers, which is what a comparison is for.
package report
