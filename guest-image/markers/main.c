/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-marker <code|name>: write a boot marker (see marker.h). Run as root in the guest, e.g.
 * by the unit that starts the pod's app: `cc-marker app-started`.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "cmdline.h"
#include "marker.h"

int main(int argc, char **argv)
{
	_cleanup_free_ char *cmdline = NULL;
	struct cmdline_options opts = {};
	uint8_t code;
	int r;

	log_set_prefix("cc-marker");
	if (argc != 2) {
		fprintf(stderr, "usage: cc-marker <code|name>\n"
				"names: init-start, systemd-exec, app-started; codes: 1-255\n");
		return EXIT_FAILURE;
	}
	r = marker_parse(argv[1], &code);
	if (r < 0) {
		log_error_errno(r, "Invalid marker '%s': expected a name or a number 1-255.",
				argv[1]);
		return EXIT_FAILURE;
	}

	r = read_full_file("/proc/cmdline", CMDLINE_MAX, &cmdline, NULL);
	if (r < 0) {
		log_error_errno(r, "Failed to read /proc/cmdline: %m");
		return EXIT_FAILURE;
	}
	r = cmdline_options_parse(cmdline, &opts);
	if (r < 0) {
		log_error_errno(r, "Failed to parse the kernel command line: %m");
		return EXIT_FAILURE;
	}
	r = marker_emit(code, opts.markers_console);
	cmdline_options_done(&opts);
	if (r < 0) {
		log_error_errno(r, "Failed to write marker 0x%02x: %m", code);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
