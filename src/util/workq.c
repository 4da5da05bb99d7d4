/*
 * The ordered work queue declared in workq.h: a ring of depth slots
 * under one mutex.  Slots from head to tail are pending; those from
 * start to tail are waiting for a worker.  Workers take the oldest
 * waiting job, so jobs start in submission order and the owner, which
 * waits for the oldest, rarely waits behind a younger one.
 */
#include "util/workq.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct workq_slot {
	void *job;
	bool done;
};

struct workq {
	workq_fn fn;
	unsigned n_threads, depth;
	pthread_t *threads;
	pthread_mutex_t lock;
	pthread_cond_t work; /* a job waits, or stop */
	pthread_cond_t done; /* a job finished */
	struct workq_slot *ring;
	/* counters, never wrapped in practice; slot = counter % depth */
	unsigned long long head, start, tail;
	bool stop;
};

static void *worker(void *arg)
{
	struct workq *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct workq_slot *s;

		while (!q->stop && q->start == q->tail)
			pthread_cond_wait(&q->work, &q->lock);
		if (q->stop)
			break;
		s = &q->ring[q->start++ % q->depth];
		pthread_mutex_unlock(&q->lock);
		q->fn(s->job);
		pthread_mutex_lock(&q->lock);
		s->done = true;
		pthread_cond_broadcast(&q->done);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct workq *workq_new(unsigned n_threads, unsigned depth, workq_fn fn)
{
	struct workq *q = xcalloc(1, sizeof(*q));
	unsigned i;
	sigset_t old;

	if (!depth)
		BUG("workq_new: depth 0");
	q->fn = fn;
	q->depth = depth;
	q->ring = xcalloc(depth, sizeof(*q->ring));
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->done, NULL);
	if (!n_threads)
		return q;
	q->threads = xcalloc(n_threads, sizeof(*q->threads));
	/* the fatal signals go to the thread that registers temporary
	 * files, never to these (xalloc.h) */
	die_signals_block(&old);
	for (i = 0; i < n_threads; i++) {
		/* fewer threads than asked still works: one is enough,
		 * and none means inline */
		if (pthread_create(&q->threads[i], NULL, worker, q) != 0)
			break;
		q->n_threads++;
	}
	die_signals_restore(&old);
	return q;
}

void workq_free(struct workq *q)
{
	unsigned i;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_broadcast(&q->work);
	pthread_mutex_unlock(&q->lock);
	for (i = 0; i < q->n_threads; i++)
		pthread_join(q->threads[i], NULL);
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->done);
	pthread_mutex_destroy(&q->lock);
	free(q->threads);
	free(q->ring);
	free(q);
}

unsigned workq_pending(const struct workq *q)
{
	/* only the owner changes head and tail */
	return (unsigned)(q->tail - q->head);
}

bool workq_full(const struct workq *q)
{
	return workq_pending(q) >= q->depth;
}

void workq_submit(struct workq *q, void *job)
{
	struct workq_slot *s;

	if (workq_full(q))
		BUG("workq_submit: %u jobs pending, the most allowed",
		    q->depth);
	s = &q->ring[q->tail % q->depth];
	if (!q->n_threads) {
		q->fn(job);
		s->job = job;
		s->done = true;
		q->tail++;
		q->start = q->tail;
		return;
	}
	pthread_mutex_lock(&q->lock);
	s->job = job;
	s->done = false;
	q->tail++;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
}

void *workq_next(struct workq *q)
{
	struct workq_slot *s;
	void *job;

	if (q->head == q->tail)
		return NULL;
	s = &q->ring[q->head % q->depth];
	pthread_mutex_lock(&q->lock);
	while (!s->done)
		pthread_cond_wait(&q->done, &q->lock);
	job = s->job;
	s->job = NULL;
	q->head++;
	pthread_mutex_unlock(&q->lock);
	return job;
}
