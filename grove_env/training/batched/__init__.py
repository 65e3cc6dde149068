"""``backend: batched``: PPO owned by this package, every step a batch over the batched engine.

=======================  ============================================================
:mod:`.loss`             GAE, the clipped PPO loss and the equilibrium-seeking terms
                         (a magnet's reverse KL, a proximal KL), coefficient schedules
:mod:`.rollout`          a rollout: the learners' decisions of all games per step, one
                         forward pass, the opponents batched by the self-play core
:mod:`.lanes`            ``learn_from: live_seats``: every live seat's decisions learnt
                         from, one trajectory per seat (in self-play, a learner step per
                         engine step)
:mod:`.update`           epochs of shuffled minibatches of the loss
:mod:`.remote`           ``overlap: true``: the next rollout collected in a second
                         process, into shared memory, while the learner updates
:mod:`.trainer`          :class:`~.trainer.BatchedTrainer`: the run (schedule,
                         checkpoints, resume, imitation, TensorBoard)
=======================  ============================================================

The network and its ``model.pt`` are shared with the descent
(:mod:`grove_env.training.run.network`). A learner: imports the shared parts, never
another learner.

Why plain torch, CleanRL-style, and not TorchRL's ``ClipPPOLoss`` and ``GAE``
(``benchmarks/ppo_loss_choice.py`` times both on the same network and minibatch): on
this project's 2-core machine TorchRL's update step and GAE were each about 14% slower
than the plain ones (they agree on the advantages), it would add TorchRL and TensorDict
to the ``train`` extra and a TensorDict between the NumPy games and the network at every
step, and its loss is a class whose terms the next issue would have to subclass to
extend. Here the loss is one function (:func:`.loss.ppo_loss`) that a new term extends
by two lines, checked against a reference written out in ``tests/training/test_batched.py``.

Threads: ``torch_threads: 2`` lets torch run the passes over thousands of rows on both
cores while the NumPy engine runs on one, but torch's threads wait for each other at
every operation, so a core that another process holds stalls every step: on this
project's shared 2-core machine (load average 4 to 6) two threads made a whole
iteration 4 to 10 times slower than one (``benchmarks/train_throughput.py
--batched-threads``). The shipped configs use 1; raise it on a machine of your own.
"""
