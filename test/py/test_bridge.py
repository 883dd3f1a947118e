"""The bridge client: every reply reaches its caller however the replies are split or joined."""
import json
import os
import pathlib
import random
import socket
import sys
import threading
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "src" / "py"))
from omp_kernel.bridge import BridgeClient, BridgeError, ReplyLines  # noqa: E402


def random_chunks(data, rng):
    """`data` cut at random places: empty-free chunks of 1 byte up to several whole replies."""
    chunks = []
    i = 0
    while i < len(data):
        size = rng.choice((1, 2, 3, 7, 40, 200, 5000, len(data)))
        chunks.append(data[i : i + size])
        i += size
    return chunks


class ReplyLinesProperty(unittest.TestCase):
    def test_random_chunkings_give_back_every_line_in_order(self):
        rng = random.Random(21)
        for trial in range(300):
            count = rng.randint(1, 60)
            replies = [
                json.dumps({"id": i, "ok": True, "value": {"output": "é" * rng.randint(0, 300) + "\u2028"}})
                for i in range(count)
            ]
            data = "".join(r + "\n" for r in replies).encode("utf-8")
            lines = ReplyLines()
            got = []
            chunks = random_chunks(data, rng)
            for chunk in chunks:
                got.extend(lines.feed(chunk))
            with self.subTest(trial=trial, chunks=len(chunks)):
                self.assertEqual([line.decode("utf-8") for line in got], replies)
                self.assertEqual(lines.pending, 0)

    def test_one_chunk_with_many_replies_and_a_reply_split_in_three(self):
        lines = ReplyLines()
        self.assertEqual(lines.feed(b'{"id": 1}\n{"id": 2}\n{"id"'), [b'{"id": 1}', b'{"id": 2}'])
        self.assertEqual(lines.feed(b": 3"), [])
        self.assertEqual(lines.feed(b"}\n"), [b'{"id": 3}'])

    def test_a_partial_line_waits_for_its_end(self):
        lines = ReplyLines()
        self.assertEqual(lines.feed(b'{"id": 1'), [])
        self.assertEqual(lines.pending, 8)


class FakeHost(object):
    """The host's end of the socket: collects requests, answers them in random chunkings."""

    def __init__(self, sock, rng, answer=True):
        self.sock = sock
        self.rng = rng
        self.answer = answer
        self.requests = []

    def serve(self, expected):
        reader = ReplyLines()
        while len(self.requests) < expected:
            data = self.sock.recv(1 << 16)
            if not data:
                return
            self.requests.extend(json.loads(line) for line in reader.feed(data))
        if not self.answer:
            return
        order = list(self.requests)
        self.rng.shuffle(order)
        replies = b"".join(
            (json.dumps({"id": r["id"], "ok": True, "value": r["payload"]}) + "\n").encode() for r in order
        )
        for chunk in random_chunks(replies, self.rng):
            self.sock.sendall(chunk)


class BridgeClientOverASocket(unittest.TestCase):
    def setUp(self):
        self.kernel_end, self.host_end = socket.socketpair()
        self.readers = []
        self.addCleanup(self.close)

    def close(self):
        # The reader must be gone before its descriptor number can be reused by the next test.
        self.host_end.close()
        for reader in self.readers:
            reader.join(10)
        self.kernel_end.close()

    def client(self, **kwargs):
        client = BridgeClient(self.kernel_end.fileno(), os.write, lambda: "cell-1", **kwargs)
        self.readers.append(client.start())
        return client

    def call_from_threads(self, client, count, timeout=30):
        results = [None] * count

        def run(i):
            try:
                results[i] = client.call("completion", {"n": i}, timeout)
            except BridgeError as exc:
                results[i] = exc

        threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return results

    def test_many_concurrent_calls_each_get_their_own_reply_under_random_chunkings(self):
        client = self.client()
        for seed in range(8):
            host = FakeHost(self.host_end, random.Random(seed))
            server = threading.Thread(target=host.serve, args=(50,))
            server.start()
            results = self.call_from_threads(client, 50)
            server.join()
            with self.subTest(seed=seed):
                self.assertEqual(results, [{"n": i} for i in range(50)])
                self.assertEqual({r["cell"] for r in host.requests}, {"cell-1"})

    def test_a_reply_that_never_comes_fails_the_call_after_its_timeout(self):
        client = self.client()
        host = FakeHost(self.host_end, random.Random(1), answer=False)
        server = threading.Thread(target=host.serve, args=(1,))
        server.start()
        with self.assertRaisesRegex(BridgeError, r"no answer from the host to agent\(\) within 0.2 s"):
            client.call("agent", {}, timeout=0.2)
        server.join()
        self.assertEqual(client._waiting, {})

    def test_the_default_limit_bounds_a_call_without_a_timeout(self):
        client = self.client(default_timeout=0.2)
        with self.assertRaisesRegex(BridgeError, "within 0.2 s"):
            client.call("completion", {})

    def test_a_closed_bridge_fails_waiting_and_later_calls(self):
        client = self.client()
        failure = []
        waiter = threading.Thread(target=lambda: failure.append(self.call_from_threads(client, 3)))
        waiter.start()
        reader = ReplyLines()
        seen = 0
        while seen < 3:
            seen += len(reader.feed(self.host_end.recv(1 << 16)))
        self.host_end.shutdown(socket.SHUT_RDWR)
        waiter.join()
        self.assertEqual([str(e) for e in failure[0]], ["the host closed the bridge"] * 3)
        with self.assertRaisesRegex(BridgeError, "the host closed the bridge"):
            client.call("agent", {})

    def test_an_error_reply_raises_its_message(self):
        client = self.client()

        def answer():
            request = json.loads(self.host_end.recv(1 << 16))
            reply = {"id": request["id"], "ok": False, "error": "cancelled: the cell was interrupted"}
            self.host_end.sendall(b"junk\n[1]\n" + json.dumps(reply).encode() + b"\n")

        threading.Thread(target=answer).start()
        with self.assertRaisesRegex(BridgeError, "cancelled: the cell was interrupted"):
            client.call("agent", {}, timeout=10)

    def test_a_call_over_the_limit_fails_at_once_and_sends_nothing(self):
        client = self.client()
        with self.assertRaisesRegex(BridgeError, r"at most 16777216 bytes \(16 MiB\)"):
            client.call("completion", {"prompt": "x" * (16 * 1024 * 1024)}, timeout=600)
        self.host_end.setblocking(False)
        with self.assertRaises(BlockingIOError):
            self.host_end.recv(1)
        self.assertEqual(client._waiting, {})

    def test_a_call_given_up_tells_the_host_to_stop_its_command(self):
        client = self.client()
        with self.assertRaisesRegex(BridgeError, "within 0.2 s"):
            client.call("agent", {}, timeout=0.2)
        reader = ReplyLines()
        lines = []
        while len(lines) < 2:
            lines.extend(json.loads(line) for line in reader.feed(self.host_end.recv(1 << 16)))
        self.assertEqual(lines[1], {"cancel": lines[0]["id"]})

    def test_a_timeout_must_be_a_positive_number(self):
        client = self.client()
        for bad in (0, -1, "5", True, float("nan")):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                client.call("agent", {}, timeout=bad)


if __name__ == "__main__":
    unittest.main()
