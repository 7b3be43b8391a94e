// Command urtrace reads the traces gour's tracing layer writes
// (UR_ENABLE_LAYERS=UR_LAYER_TRACING, GOUR_TRACE=path, ur.StartTrace): Chrome
// trace event JSON, which Perfetto and chrome://tracing open.
//
//	urtrace summary [-top N] FILE      calls by total and mean host time; per queue the
//	                                   device busy fraction; the largest gaps between commands
//	urtrace draw [-o OUT] [-from MS] [-to MS] FILE
//	                                   the timeline as a picture: one row per host track and
//	                                   per queue; OUT's extension picks PNG, SVG or PDF
//	                                   (default FILE with .png)
//	urtrace repair [-o OUT] FILE       a trace cut short (the program crashed while
//	                                   writing it, the disk filled) cut after its last whole
//	                                   event and closed, as Perfetto wants it; in place by default
//
// Exit status: 0 done, 1 the command failed, 2 misuse.
package main
