/* A stand-in for libnvrtc, built by the tests where no CUDA toolkit is
 * installed, to run the binding's calls through internal/dl. It lacks the
 * cubin entry points, as CUDA before 11.1 does. Its "PTX" is the program's
 * name, options and source; a source containing "undeclared" fails to
 * compile with a log naming it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char *src, *name, *ptx, *expr;
	const char *log;
	int compiled;
} program;

int nvrtcVersion(int *major, int *minor) {
	*major = 12;
	*minor = 8;
	return 0;
}

const char *nvrtcGetErrorString(int r) { return r == 6 ? "NVRTC_ERROR_COMPILATION (stand-in)" : "stand-in"; }

int nvrtcCreateProgram(program **p, const char *src, const char *name, int n, const char *const *h, const char *const *inc) {
	if (!p || !src || n != 0 || h || inc)
		return 3; /* NVRTC_ERROR_INVALID_INPUT */
	*p = calloc(1, sizeof **p);
	(*p)->src = strdup(src);
	(*p)->name = strdup(name ? name : "default_program");
	(*p)->log = "";
	return 0;
}

int nvrtcDestroyProgram(program **p) {
	if (!p || !*p)
		return 4; /* NVRTC_ERROR_INVALID_PROGRAM */
	free((*p)->src), free((*p)->name), free((*p)->ptx), free((*p)->expr), free(*p);
	*p = NULL;
	return 0;
}

int nvrtcCompileProgram(program *p, int n, const char *const *opts) {
	if (strstr(p->src, "undeclared")) {
		p->log = "bad.cu(1): error: identifier \"undeclared\" is undefined\n";
		return 6; /* NVRTC_ERROR_COMPILATION */
	}
	size_t size = strlen(p->name) + strlen(p->src) + 8;
	for (int i = 0; i < n; i++)
		size += strlen(opts[i]) + 1;
	p->ptx = malloc(size);
	char *w = p->ptx + sprintf(p->ptx, "// %s\n//", p->name);
	for (int i = 0; i < n; i++)
		w += sprintf(w, " %s", opts[i]);
	sprintf(w, "\n%s", p->src);
	p->compiled = 1;
	return 0;
}

int nvrtcGetPTXSize(program *p, size_t *size) {
	if (!p->compiled)
		return 4;
	*size = strlen(p->ptx) + 1;
	return 0;
}

int nvrtcGetPTX(program *p, char *out) {
	strcpy(out, p->ptx);
	return 0;
}

int nvrtcGetProgramLogSize(program *p, size_t *size) {
	*size = strlen(p->log) + 1;
	return 0;
}

int nvrtcGetProgramLog(program *p, char *out) {
	strcpy(out, p->log);
	return 0;
}

int nvrtcAddNameExpression(program *p, const char *expr) {
	if (p->compiled)
		return 8; /* NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION */
	p->expr = strdup(expr);
	return 0;
}

int nvrtcGetLoweredName(program *p, const char *expr, const char **lowered) {
	if (!p->compiled)
		return 9; /* NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION */
	if (!p->expr || strcmp(expr, p->expr) != 0)
		return 10; /* NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID */
	*lowered = "_Z5scaleIfEvPT_S0_";
	return 0;
}
