/* A stand-in for libnvJitLink, built by the tests where no CUDA toolkit is
 * installed, to run the binding's calls through internal/dl. Like CUDA 12's
 * library it exports only the versioned entry points, and it lacks the info
 * log. Its "link" checks the arguments and copies the input after an ELF
 * magic; an input containing "bogus" fails with an error log. */
#include <stdlib.h>
#include <string.h>

typedef struct {
	char *data;
	size_t size;
	const char *error_log;
} handle;

unsigned __nvJitLinkCreate_12_0(handle **h, unsigned n, const char **opts) {
	int arch = 0;
	for (unsigned i = 0; i < n; i++)
		arch |= strncmp(opts[i], "-arch=sm_", 9) == 0 && strcmp(opts[i], "-arch=sm_nope") != 0;
	if (!arch)
		return 2; /* NVJITLINK_ERROR_MISSING_ARCH */
	*h = calloc(1, sizeof **h);
	(*h)->error_log = "";
	return 0;
}

unsigned __nvJitLinkDestroy_12_0(handle **h) {
	if (!h || !*h)
		return 3;
	free((*h)->data);
	free(*h);
	*h = NULL;
	return 0;
}

unsigned __nvJitLinkAddData_12_0(handle *h, int type, const void *data, size_t size, const char *name) {
	/* PTX (2) must come NUL-terminated, as the header says. */
	if (!h || !data || type != 2 || size == 0 || ((const char *)data)[size - 1] != 0 || !name)
		return 3; /* NVJITLINK_ERROR_INVALID_INPUT */
	h->data = malloc(size);
	memcpy(h->data, data, size);
	h->size = size;
	return 0;
}

unsigned __nvJitLinkComplete_12_0(handle *h) {
	if (strstr(h->data, "bogus")) {
		h->error_log = "ptxas fatal: unknown instruction 'bogus'";
		return 4; /* NVJITLINK_ERROR_PTX_COMPILE */
	}
	return 0;
}

unsigned __nvJitLinkGetLinkedCubinSize_12_0(handle *h, size_t *size) {
	*size = 4 + h->size;
	return 0;
}

unsigned __nvJitLinkGetLinkedCubin_12_0(handle *h, void *out) {
	memcpy(out, "\x7f" "ELF", 4);
	memcpy((char *)out + 4, h->data, h->size);
	return 0;
}

unsigned __nvJitLinkGetErrorLogSize_12_0(handle *h, size_t *size) {
	*size = strlen(h->error_log) + 1;
	return 0;
}

unsigned __nvJitLinkGetErrorLog_12_0(handle *h, char *out) {
	strcpy(out, h->error_log);
	return 0;
}

unsigned nvJitLinkVersion(unsigned *major, unsigned *minor) {
	*major = 12;
	*minor = 8;
	return 0;
}
