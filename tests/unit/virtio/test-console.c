/* SPDX-License-Identifier: Apache-2.0 */
/* virtio-console end to end: a fake driver on the MMIO transport, pipes as the host side. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cctest.h"
#include "base/evloop.h"
#include "console/console.h"
#include "virtio/mmio.h"
#include "vtest.h"

#define BASE   0xd0000000ull
#define RX_NUM 8 /* the sizes the device offers (QueueNumMax) */
#define TX_NUM 16

static struct vtest_guest g;
static struct vtest_irq irq;
static struct evloop *loop;
static pthread_t loop_thread;
static struct vtrans_mmio *t;
static struct vdev *dev;
static int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1};
static int sock[2] = {-1, -1};
static uint16_t next_desc[2]; /* driver-side descriptor allocator, per queue */

static void *loop_main(void *arg)
{
	(void) evloop_run(arg);
	return NULL;
}

static uint32_t rd(uint64_t off)
{
	uint32_t v = 0;

	vtrans_mmio_iobus_ops.read(t, off, &v, 4);
	return v;
}

static void wr(uint64_t off, uint32_t v)
{
	vtrans_mmio_iobus_ops.write(t, off, &v, 4);
}

static unsigned num_of(unsigned q)
{
	return q == VCON_RX ? RX_NUM : TX_NUM;
}

static void driver_setup_queue(unsigned q)
{
	/* Fresh rings, as a driver allocates them on every (re)initialisation. */
	memset(vtest_hva(&g, VTEST_DESC + q * 0x1000), 0, 0x1000);
	memset(vtest_hva(&g, VTEST_AVAIL + q * 0x1000), 0, 0x1000);
	memset(vtest_hva(&g, VTEST_USED + q * 0x1000), 0, 0x1000);
	wr(0x030, q);
	ck_assert_uint_eq(rd(0x034), num_of(q));
	wr(0x038, num_of(q));
	wr(0x080, (uint32_t) (VTEST_DESC + q * 0x1000));
	wr(0x090, (uint32_t) (VTEST_AVAIL + q * 0x1000));
	wr(0x0a0, (uint32_t) (VTEST_USED + q * 0x1000));
	wr(0x044, 1);
	ck_assert_uint_eq(rd(0x044), 1);
}

/* Reset, then ACKNOWLEDGE, DRIVER and FEATURES_OK with VERSION_1 only: queues come next. */
static void driver_negotiate(void)
{
	wr(0x070, 0);
	wr(0x070, 1);
	wr(0x070, 1 | 2);
	wr(0x024, 1);
	wr(0x020, 1);
	wr(0x070, 1 | 2 | 8);
}

static void driver_init(void)
{
	memset(next_desc, 0, sizeof(next_desc));
	ck_assert_uint_eq(rd(0x008), VIRTIO_ID_CONSOLE);
	driver_negotiate();
	ck_assert_uint_eq(rd(0x070), 1 | 2 | 8);
	driver_setup_queue(VCON_RX);
	driver_setup_queue(VCON_TX);
	wr(0x070, 1 | 2 | 8 | 4);
	ck_assert_uint_eq(rd(0x070), 1 | 2 | 8 | 4);
}

static void setup_common(int in_fd, int out_fd)
{
	ASSERT_OK(evloop_new(&loop));
	ASSERT_OK(vcon_new(in_fd, out_fd, &dev));
	ASSERT_OK(vtrans_mmio_new(
		&(struct vtrans_mmio_env){.gm = &g.gm, .loop = loop, .irq = irq.line}, dev, BASE,
		&t));
	ck_assert_int_eq(pthread_create(&loop_thread, NULL, loop_main, loop), 0);
	driver_init();
}

static void setup(void)
{
	(void) signal(SIGPIPE, SIG_IGN);
	vtest_guest_init(&g);
	vtest_irq_init(&irq);
	ck_assert_int_eq(pipe2(in_pipe, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(out_pipe, O_CLOEXEC), 0);
	setup_common(in_pipe[0], out_pipe[1]);
}

/* One socket carries both directions (like a pty or a unix socket would). */
static void setup_socket(void)
{
	(void) signal(SIGPIPE, SIG_IGN);
	vtest_guest_init(&g);
	vtest_irq_init(&irq);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock), 0);
	setup_common(sock[0], sock[0]);
}

static void teardown(void)
{
	evloop_stop(loop);
	pthread_join(loop_thread, NULL);
	t = vtrans_mmio_free(t);
	dev->ops->free(dev);
	loop = evloop_free(loop);
	for (unsigned i = 0; i < 2; i++) {
		if (in_pipe[i] >= 0)
			close(in_pipe[i]);
		if (out_pipe[i] >= 0)
			close(out_pipe[i]);
		if (sock[i] >= 0)
			close(sock[i]);
		in_pipe[i] = out_pipe[i] = sock[i] = -1;
	}
	vtest_guest_done(&g);
}

static struct virtq *queue(unsigned q)
{
	return &dev->queues[q];
}

/* Post one chain of n buffers (data or zeros) on queue q and return its head. */
static uint16_t driver_post(unsigned q, uint64_t buf_gpa, const uint32_t *lens, unsigned n,
			    bool writable)
{
	uint64_t table = VTEST_DESC + q * 0x1000;
	uint16_t head = next_desc[q] % num_of(q);

	for (unsigned i = 0; i < n; i++) {
		uint16_t d = next_desc[q]++ % num_of(q);
		uint16_t flags =
			(writable ? VIRTQ_DESC_F_WRITE : 0) | (i + 1 < n ? VIRTQ_DESC_F_NEXT : 0);

		vtest_desc_set(&g, table, d, buf_gpa, lens[i], flags,
			       (uint16_t) ((d + 1) % num_of(q)));
		buf_gpa += lens[i];
	}
	vtest_avail_add(&g, queue(q), head);
	return head;
}

static bool wait_used(unsigned q, uint16_t want)
{
	for (unsigned i = 0; i < 5000; i++) {
		if ((uint16_t) (vtest_used_idx(&g, queue(q)) - want) < 0x8000)
			return true;
		usleep(1000);
	}
	return false;
}

/* Read exactly len bytes from fd, waiting up to 5 s. */
static void read_exact(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		ck_assert_int_eq(poll(&p, 1, 5000), 1);
		n = read(fd, (uint8_t *) buf + done, len - done);
		ck_assert_int_gt(n, 0);
		done += (size_t) n;
	}
}

static bool fd_has_data(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, timeout_ms) == 1;
}

START_TEST(test_console_tx_reaches_host)
{
	static const char msg[] = "hello, world\n";
	uint32_t lens[] = {5, sizeof(msg) - 1 - 5};
	char out[sizeof(msg)] = {0};
	uint32_t id, len;
	unsigned irqs = __atomic_load_n(&irq.count, __ATOMIC_SEQ_CST);
	uint16_t head;

	memcpy(vtest_hva(&g, VTEST_BUF), msg, sizeof(msg) - 1);
	head = driver_post(VCON_TX, VTEST_BUF, lens, 2, false);
	wr(0x050, VCON_TX);
	read_exact(out_pipe[0], out, sizeof(msg) - 1);
	ck_assert_str_eq(out, msg);
	ck_assert(wait_used(VCON_TX, 1));
	vtest_used_elem(&g, queue(VCON_TX), 0, &id, &len);
	ck_assert_uint_eq(id, head);
	ck_assert_uint_eq(len, 0);
	ck_assert_uint_gt(__atomic_load_n(&irq.count, __ATOMIC_SEQ_CST), irqs);
	ck_assert_uint_eq(rd(0x060) & 1, 1);
	ck_assert(!fd_has_data(out_pipe[0], 10));
}
END_TEST

START_TEST(test_console_rx_reaches_guest)
{
	uint32_t lens[] = {16};
	uint32_t id, len;
	uint16_t h0, h1;
	struct vcon_stats st;

	h0 = driver_post(VCON_RX, VTEST_BUF, lens, 1, true);
	h1 = driver_post(VCON_RX, VTEST_BUF + 16, lens, 1, true);
	wr(0x050, VCON_RX);
	ck_assert_int_eq(write(in_pipe[1], "abc", 3), 3);
	ck_assert(wait_used(VCON_RX, 1));
	vtest_used_elem(&g, queue(VCON_RX), 0, &id, &len);
	ck_assert_uint_eq(id, h0);
	ck_assert_uint_eq(len, 3);
	ck_assert_int_eq(memcmp(vtest_hva(&g, VTEST_BUF), "abc", 3), 0);

	ck_assert_int_eq(write(in_pipe[1], "0123456789abcdefXYZ", 19), 19);
	ck_assert(wait_used(VCON_RX, 2));
	vtest_used_elem(&g, queue(VCON_RX), 1, &id, &len);
	ck_assert_uint_eq(id, h1);
	ck_assert_uint_eq(len, 16);
	/* The rest waits in the pipe until the guest posts another buffer. */
	usleep(20000);
	ck_assert_uint_eq(vtest_used_idx(&g, queue(VCON_RX)), 2);
	driver_post(VCON_RX, VTEST_BUF + 32, lens, 1, true);
	wr(0x050, VCON_RX);
	ck_assert(wait_used(VCON_RX, 3));
	vtest_used_elem(&g, queue(VCON_RX), 2, &id, &len);
	ck_assert_uint_eq(len, 3);
	ck_assert_int_eq(memcmp(vtest_hva(&g, VTEST_BUF + 32), "XYZ", 3), 0);
	vcon_get_stats(dev, &st);
	ck_assert_uint_eq(st.rx_bytes, 22);
}
END_TEST

START_TEST(test_console_tx_waits_for_slow_output)
{
	enum {
		CHUNK = 2048,
		CHAINS = 16
	}; /* 32 KiB: fits in region A above VTEST_BUF */
	static uint8_t out[CHUNK * CHAINS];
	uint32_t lens[] = {CHUNK};
	struct vcon_stats st;

	/* A small non-blocking pipe: the device must wait for EPOLLOUT, not drop. */
	ck_assert_int_ge(fcntl(out_pipe[1], F_SETPIPE_SZ, 4096), 4096);
	ck_assert_int_eq(fcntl(out_pipe[1], F_SETFL, O_NONBLOCK), 0);
	for (unsigned i = 0; i < CHAINS * CHUNK; i++)
		((uint8_t *) vtest_hva(&g, VTEST_BUF))[i] = (uint8_t) (i * 7 + i / 251);
	for (unsigned i = 0; i < CHAINS; i++)
		driver_post(VCON_TX, VTEST_BUF + (uint64_t) i * CHUNK, lens, 1, false);
	wr(0x050, VCON_TX);
	usleep(50000);
	ck_assert_uint_lt(vtest_used_idx(&g, queue(VCON_TX)), CHAINS);
	read_exact(out_pipe[0], out, sizeof(out));
	ck_assert_int_eq(memcmp(out, vtest_hva(&g, VTEST_BUF), sizeof(out)), 0);
	ck_assert(wait_used(VCON_TX, CHAINS));
	vcon_get_stats(dev, &st);
	ck_assert_uint_eq(st.tx_bytes, sizeof(out));
	ck_assert_uint_eq(st.tx_dropped, 0);
}
END_TEST

START_TEST(test_console_tx_counts_dropped_output)
{
	uint32_t lens[] = {10};
	struct vcon_stats st;

	close(out_pipe[0]);
	out_pipe[0] = -1;
	driver_post(VCON_TX, VTEST_BUF, lens, 1, false);
	wr(0x050, VCON_TX);
	ck_assert(wait_used(VCON_TX, 1)); /* the guest is not left hanging */
	vcon_get_stats(dev, &st);
	ck_assert_uint_eq(st.tx_dropped, 10);
	ck_assert_uint_eq(st.tx_bytes, 0);
}
END_TEST

START_TEST(test_console_bad_chain_is_returned)
{
	uint32_t lens[] = {4};
	uint32_t id, len;
	struct vcon_stats st;
	char out[5] = {0};

	/* A self-looping descriptor, then a good chain. */
	vtest_desc_set(&g, VTEST_DESC + 0x1000, 0, VTEST_BUF, 4, VIRTQ_DESC_F_NEXT, 0);
	vtest_avail_add(&g, queue(VCON_TX), 0);
	next_desc[VCON_TX] = 1;
	memcpy(vtest_hva(&g, VTEST_BUF + 64), "good", 4);
	driver_post(VCON_TX, VTEST_BUF + 64, lens, 1, false);
	wr(0x050, VCON_TX);
	read_exact(out_pipe[0], out, 4);
	ck_assert_str_eq(out, "good");
	ck_assert(wait_used(VCON_TX, 2));
	vtest_used_elem(&g, queue(VCON_TX), 0, &id, &len);
	ck_assert_uint_eq(id, 0);
	ck_assert_uint_eq(len, 0);
	vcon_get_stats(dev, &st);
	ck_assert_uint_eq(st.bad_chains, 1);
	ck_assert_uint_eq(st.tx_bytes, 4);
}
END_TEST

START_TEST(test_console_reset_drops_pending_and_restarts)
{
	uint32_t lens[] = {4096};
	uint32_t small[] = {3};
	char drain[8192], out[4] = {0};

	ck_assert_int_ge(fcntl(out_pipe[1], F_SETPIPE_SZ, 4096), 4096);
	ck_assert_int_eq(fcntl(out_pipe[1], F_SETFL, O_NONBLOCK), 0);
	driver_post(VCON_TX, VTEST_BUF, lens, 1, false);
	driver_post(VCON_TX, VTEST_BUF + 4096, lens, 1, false);
	wr(0x050, VCON_TX);
	usleep(20000);
	/* Reset while the second chain waits for the host. */
	driver_init();
	while (fd_has_data(out_pipe[0], 50))
		ck_assert_int_gt(read(out_pipe[0], drain, sizeof(drain)), 0);
	memcpy(vtest_hva(&g, VTEST_BUF), "new", 3);
	driver_post(VCON_TX, VTEST_BUF, small, 1, false);
	wr(0x050, VCON_TX);
	read_exact(out_pipe[0], out, 3);
	ck_assert_str_eq(out, "new");
	ck_assert(wait_used(VCON_TX, 1));
}
END_TEST

START_TEST(test_console_input_eof_is_quiet)
{
	uint32_t lens[] = {8};

	driver_post(VCON_RX, VTEST_BUF, lens, 1, true);
	wr(0x050, VCON_RX);
	close(in_pipe[1]);
	in_pipe[1] = -1;
	usleep(50000);
	ck_assert_uint_eq(vtest_used_idx(&g, queue(VCON_RX)), 0);
	/* Output still works after input ended. */
	memcpy(vtest_hva(&g, VTEST_BUF + 64), "ok", 2);
	lens[0] = 2;
	driver_post(VCON_TX, VTEST_BUF + 64, lens, 1, false);
	wr(0x050, VCON_TX);
	ck_assert(wait_used(VCON_TX, 1));
}
END_TEST

START_TEST(test_console_needs_transmit_queue)
{
	driver_negotiate();
	driver_setup_queue(VCON_RX);
	wr(0x070, 1 | 2 | 8 | 4);
	ck_assert_uint_eq(rd(0x070) & 64, 64); /* NEEDS_RESET */
}
END_TEST

/* The receive queue, which the guest fills with a page per entry, is offered smaller than the
 * transmit queue, and a bigger size is refused there. */
START_TEST(test_console_rx_queue_is_small)
{
	driver_negotiate();
	wr(0x030, VCON_RX);
	ck_assert_uint_eq(rd(0x034), RX_NUM);
	wr(0x038, TX_NUM);
	wr(0x080, (uint32_t) VTEST_DESC);
	wr(0x090, (uint32_t) VTEST_AVAIL);
	wr(0x0a0, (uint32_t) VTEST_USED);
	wr(0x044, 1);
	ck_assert_uint_eq(rd(0x044), 0);
	wr(0x030, VCON_TX);
	ck_assert_uint_eq(rd(0x034), TX_NUM);
}
END_TEST

START_TEST(test_console_tx_yields_to_other_sources)
{
	char out[TX_NUM];
	struct vcon_stats st;

	/* A full ring (more than one turn's budget), published at once with a single avail
	 * index update, comes out whole and in order. */
	for (unsigned i = 0; i < TX_NUM; i++) {
		((char *) vtest_hva(&g, VTEST_BUF))[i] = (char) ('A' + i % 26);
		vtest_desc_set(&g, VTEST_DESC + 0x1000, i, VTEST_BUF + i, 1, 0, 0);
		ck_assert_int_eq(
			gmem_write_u16(&g.gm, VTEST_AVAIL + 0x1000 + 4 + 2 * i, (uint16_t) i), 0);
	}
	vtest_avail_set_idx(&g, queue(VCON_TX), TX_NUM);
	wr(0x050, VCON_TX);
	read_exact(out_pipe[0], out, sizeof(out));
	ck_assert_int_eq(memcmp(out, vtest_hva(&g, VTEST_BUF), sizeof(out)), 0);
	ck_assert(wait_used(VCON_TX, TX_NUM));
	vcon_get_stats(dev, &st);
	ck_assert_uint_ge(st.tx_yields, 1);
	ck_assert_uint_eq(st.tx_bytes, TX_NUM);
	ck_assert(!fd_has_data(out_pipe[0], 10));
}
END_TEST

static void *feed_input(void *arg)
{
	unsigned *stop = arg;

	while (!__atomic_load_n(stop, __ATOMIC_SEQ_CST))
		if (write(in_pipe[1], "x", 1) < 0 || usleep(50) < 0)
			break;
	return NULL;
}

START_TEST(test_console_survives_reset_storm)
{
	uint32_t lens[] = {8};
	unsigned stop = 0;
	pthread_t feeder;
	char drain[4096];

	/* The vCPU side resets and re-initialises the device while the event loop is busy
	 * with input, output and kicks: no deadlock, no crash, output keeps working. */
	ck_assert_int_eq(fcntl(out_pipe[0], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(pthread_create(&feeder, NULL, feed_input, &stop), 0);
	for (unsigned i = 0; i < 200; i++) {
		driver_init();
		driver_post(VCON_RX, VTEST_B_GPA, lens, 1, true);
		driver_post(VCON_RX, VTEST_B_GPA + 8, lens, 1, true);
		wr(0x050, VCON_RX);
		driver_post(VCON_TX, VTEST_BUF, lens, 1, false);
		wr(0x050, VCON_TX);
		wr(0x064, rd(0x060));
		while (read(out_pipe[0], drain, sizeof(drain)) > 0)
			;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_SEQ_CST);
	pthread_join(feeder, NULL);
	/* After a reset the device writes nothing more: drain what the storm left. */
	driver_init();
	while (read(out_pipe[0], drain, sizeof(drain)) > 0)
		;
	memcpy(vtest_hva(&g, VTEST_BUF), "end", 3);
	lens[0] = 3;
	driver_post(VCON_TX, VTEST_BUF, lens, 1, false);
	wr(0x050, VCON_TX);
	ck_assert(wait_used(VCON_TX, 1));
	ck_assert_int_eq(fcntl(out_pipe[0], F_SETFL, 0), 0);
	read_exact(out_pipe[0], drain, 3);
	ck_assert_int_eq(memcmp(drain, "end", 3), 0);
}
END_TEST

START_TEST(test_console_one_fd_both_ways)
{
	enum {
		CHUNK = 2048,
		CHAINS = 16
	};
	static uint8_t out[CHUNK * CHAINS];
	uint32_t lens[] = {CHUNK}, rx_lens[] = {64};
	uint32_t id, len;
	int size = 4096;

	/* Output backs up (small non-blocking socket buffer) while input keeps flowing. */
	ck_assert_int_eq(setsockopt(sock[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)), 0);
	ck_assert_int_eq(fcntl(sock[0], F_SETFL, O_NONBLOCK), 0);
	for (unsigned i = 0; i < sizeof(out); i++)
		((uint8_t *) vtest_hva(&g, VTEST_BUF))[i] = (uint8_t) (i * 13);
	for (unsigned i = 0; i < CHAINS; i++)
		driver_post(VCON_TX, VTEST_BUF + (uint64_t) i * CHUNK, lens, 1, false);
	wr(0x050, VCON_TX);
	driver_post(VCON_RX, VTEST_B_GPA, rx_lens, 1, true);
	wr(0x050, VCON_RX);
	ck_assert_int_eq(write(sock[1], "ping", 4), 4);
	ck_assert(wait_used(VCON_RX, 1));
	vtest_used_elem(&g, queue(VCON_RX), 0, &id, &len);
	ck_assert_uint_eq(len, 4);
	ck_assert_int_eq(memcmp(vtest_hva(&g, VTEST_B_GPA), "ping", 4), 0);
	read_exact(sock[1], out, sizeof(out));
	ck_assert_int_eq(memcmp(out, vtest_hva(&g, VTEST_BUF), sizeof(out)), 0);
	ck_assert(wait_used(VCON_TX, CHAINS));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("console");
	TCase *tc = tcase_create("console"), *ts;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_console_tx_reaches_host);
	tcase_add_test(tc, test_console_rx_reaches_guest);
	tcase_add_test(tc, test_console_tx_waits_for_slow_output);
	tcase_add_test(tc, test_console_tx_counts_dropped_output);
	tcase_add_test(tc, test_console_bad_chain_is_returned);
	tcase_add_test(tc, test_console_reset_drops_pending_and_restarts);
	tcase_add_test(tc, test_console_input_eof_is_quiet);
	tcase_add_test(tc, test_console_needs_transmit_queue);
	tcase_add_test(tc, test_console_rx_queue_is_small);
	tcase_add_test(tc, test_console_survives_reset_storm);
	tcase_add_test(tc, test_console_tx_yields_to_other_sources);
	suite_add_tcase(s, tc);
	ts = tcase_create("socket");
	tcase_add_checked_fixture(ts, setup_socket, teardown);
	tcase_set_timeout(ts, 30);
	tcase_add_test(ts, test_console_one_fd_both_ways);
	suite_add_tcase(s, ts);
	return cctest_run_suite(s);
}
