from pathlib import Path

from controller.feed.outbox import Outbox


def test_unacknowledged_events_survive_a_reopen_in_order(tmp_path: Path) -> None:
    path = tmp_path / "outbox.sqlite"
    box = Outbox(path)
    seqs = [box.append(lambda seq, i=i: {"seq": seq, "i": i}).seq for i in range(5)]
    assert seqs == [1, 2, 3, 4, 5]
    box.ack(1)
    box.ack(3)
    box.save_state('{"seq": 5}')
    box.close()
    box.ack(4)  # after close: ignored, not a crash

    again = Outbox(path)
    assert [e.seq for e in again.pending()] == [2, 4, 5]
    assert again.next_seq() == 6
    assert again.saved_state() == '{"seq": 5}'
    again.close()


def test_memory_outbox_numbers_from_one() -> None:
    box = Outbox(None)
    assert box.last_seq() == 0
    assert box.append(lambda seq: {"seq": seq}).payload == '{"seq":1}'
    box.close()
