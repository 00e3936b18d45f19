"""make interop: TensorBoard itself reads a log directory that symflow wrote.

Run by scripts/interop.sh as  python3 tensorboard_check.py WRITER WORK_DIR, where WRITER
is tests/interop/write_summaries.cpp's program. It writes WORK_DIR/logs and prints the
loss at each step and the graph's node names. Then:
  1. TensorBoard's own event loader (EventAccumulator) loads the folder: the scalar tag,
     its steps and values, the weights' histogram per step, the image (its size and PNG,
     byte for byte what TensorFlow's ImageSummary encodes for the same pixels), the audio
     clip and the graph (every node symflow printed);
  2. the `tensorboard` server runs on the folder for a bounded time, and its HTTP data
     API serves the same scalars and a graph with the same nodes.
Exits non-zero, listing every mismatch, if anything differs.
"""
import json
import math
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import numpy as np
import tensorflow.compat.v1 as tf
from google.protobuf import text_format
from tensorboard.backend.event_processing import event_accumulator

tf.disable_v2_behavior()

WRITER, WORK = sys.argv[1], sys.argv[2]
SERVER_SECONDS = 90  # how long the server may take to load the folder
failures = []
checked = 0


def check(what, ok, detail=""):
    global checked
    checked += 1
    if not ok:
        failures.append(f"{what}{': ' + detail if detail else ''}")


def pattern_image():
    """The pixels write_summaries.cpp puts in its image summary."""
    row, column, channel = np.meshgrid(np.arange(8), np.arange(8), np.arange(3), indexing="ij")
    return ((row * 32 + column * 4 + channel * 80) % 256).astype(np.uint8).reshape(1, 8, 8, 3)


def tensorflow_png(pixels):
    """What TensorFlow's ImageSummary encodes for the same pixels."""
    g = tf.Graph()
    with g.as_default(), tf.Session(graph=g) as sess:
        summary = tf.Summary()
        summary.ParseFromString(sess.run(tf.summary.image("pattern", tf.constant(pixels))))
    return summary.value[0].image.encoded_image_string


def write_logdir(logdir):
    done = subprocess.run([WRITER, logdir], capture_output=True, text=True)
    if done.returncode != 0:
        failures.append(f"summary writer: {done.stderr.strip()}")
        return None, None
    losses, nodes = {}, []
    for line in done.stdout.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "loss":
            step, value = rest.split()
            losses[int(step)] = float(value)
        elif kind == "node":
            nodes.append(rest)
    return losses, nodes


def check_event_accumulator(logdir, losses, nodes):
    acc = event_accumulator.EventAccumulator(
        logdir, size_guidance={event_accumulator.SCALARS: 0, event_accumulator.HISTOGRAMS: 0,
                               event_accumulator.IMAGES: 0, event_accumulator.AUDIO: 0})
    acc.Reload()
    tags = acc.Tags()
    check("EventAccumulator: scalar tag", tags[event_accumulator.SCALARS] == ["train/loss"],
          str(tags[event_accumulator.SCALARS]))
    scalars = acc.Scalars("train/loss") if "train/loss" in tags[event_accumulator.SCALARS] else []
    check("EventAccumulator: scalar steps", [s.step for s in scalars] == sorted(losses),
          str([s.step for s in scalars]))
    for s in scalars:
        want = np.float32(losses.get(s.step, math.nan))
        check(f"EventAccumulator: loss at step {s.step}", np.float32(s.value) == want,
              f"{s.value} != {want}")
    check("EventAccumulator: histogram tag",
          tags[event_accumulator.HISTOGRAMS] == ["train/weights"],
          str(tags[event_accumulator.HISTOGRAMS]))
    if "train/weights" in tags[event_accumulator.HISTOGRAMS]:
        histograms = acc.Histograms("train/weights")
        check("EventAccumulator: a histogram per step",
              [h.step for h in histograms] == sorted(losses))
        for h in histograms:
            check(f"EventAccumulator: histogram at step {h.step} counts both weights",
                  h.histogram_value.num == 2.0, str(h.histogram_value.num))
    check("EventAccumulator: image tag", tags[event_accumulator.IMAGES] == ["train/pattern/image/0"],
          str(tags[event_accumulator.IMAGES]))
    if tags[event_accumulator.IMAGES]:
        images = acc.Images("train/pattern/image/0")
        want_png = tensorflow_png(pattern_image())
        for image in images:
            check(f"EventAccumulator: image size at step {image.step}",
                  (image.width, image.height) == (8, 8), f"{image.width}x{image.height}")
            check(f"EventAccumulator: the PNG at step {image.step} is TensorFlow's, byte for byte",
                  image.encoded_image_string == want_png)
        decoded = None
        if images:
            g = tf.Graph()
            with g.as_default(), tf.Session(graph=g) as sess:
                decoded = sess.run(tf.image.decode_png(images[0].encoded_image_string))
        check("the PNG decodes to the pixels written",
              decoded is not None and np.array_equal(decoded, pattern_image()[0]))
    check("EventAccumulator: audio tag", tags[event_accumulator.AUDIO] == ["train/tone/audio/0"],
          str(tags[event_accumulator.AUDIO]))
    if tags[event_accumulator.AUDIO]:
        clip = acc.Audio("train/tone/audio/0")[0]
        check("EventAccumulator: audio clip", (clip.content_type, clip.sample_rate,
                                                clip.length_frames) == ("audio/wav", 8000.0, 400),
              str((clip.content_type, clip.sample_rate, clip.length_frames)))
    check("EventAccumulator: a graph", tags["graph"] is True)
    if tags["graph"]:
        names = [n.name for n in acc.Graph().node]
        check("EventAccumulator: the graph's nodes are symflow's", names == nodes,
              f"{len(names)} nodes, {len(nodes)} printed")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(base, path):
    with urllib.request.urlopen(base + path, timeout=10) as response:
        return response.read()


def check_server(logdir, losses, nodes):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "tensorboard.main", "--logdir", logdir, "--port", str(port),
         "--host", "127.0.0.1", "--reload_interval", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        query = urllib.parse.urlencode({"run": ".", "tag": "train/loss"})
        scalars = None
        deadline = time.time() + SERVER_SECONDS
        while time.time() < deadline and server.poll() is None:
            try:
                scalars = json.loads(fetch(base, "/data/plugin/scalars/scalars?" + query))
                if len(scalars) == len(losses):
                    break
            except (urllib.error.URLError, ConnectionError, ValueError):
                pass
            time.sleep(1)
        if scalars is None:
            failures.append(f"tensorboard served no scalars within {SERVER_SECONDS} s "
                            f"(exit code {server.poll()})")
            return
        check("TensorBoard HTTP: scalar steps", [s[1] for s in scalars] == sorted(losses),
              str(scalars))
        for _, step, value in scalars:
            want = np.float32(losses.get(step, math.nan))
            check(f"TensorBoard HTTP: loss at step {step}", np.float32(value) == want,
                  f"{value} != {want}")
        runs = json.loads(fetch(base, "/data/runs"))
        check("TensorBoard HTTP: one run", runs == ["."], str(runs))
        graph_text = fetch(base, "/data/plugin/graphs/graph?run=.").decode()
        graph_def = tf.GraphDef()
        text_format.Parse(graph_text, graph_def)
        names = [n.name for n in graph_def.node]
        check("TensorBoard HTTP: the graph's nodes are symflow's", names == nodes,
              f"{len(names)} nodes, {len(nodes)} printed")
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main():
    logdir = os.path.join(WORK, "logs")
    os.makedirs(WORK, exist_ok=True)
    losses, nodes = write_logdir(logdir)
    if losses is not None:
        check("the writer printed 5 losses", sorted(losses) == [0, 1, 2, 3, 4], str(losses))
        check_event_accumulator(logdir, losses, nodes)
        check_server(logdir, losses, nodes)
    print(f"tensorboard: {checked} comparisons, {len(failures)} failures")
    for f in failures:
        print("  FAIL", f)
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
