package hook

import (
	"context"
	"time"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/ask/question"
	"github.com/agentairlock/airlock/audit"
)

// channelAsker puts an ask to a person on Airlock's ask channel (askd,
// the terminal, a desktop dialog, then ask_fallback: package ask, the MCP
// proxy's channel) for an agent whose hook cannot ask. The channel is
// opened on the first ask, so a call that is not asked about pays
// nothing, and the ask ends by `by`, before the hook's deadline: the
// answer and its record are written while the agent still waits.
type channelAsker struct {
	home   string
	getenv func(string) string
	by     time.Time
}

func (a *channelAsker) Ask(ctx context.Context, r question.Request) question.Outcome {
	ch, err := ask.New(ask.Options{Home: a.home, Getenv: a.getenv})
	if err != nil {
		// an ask channel that is not what the user configured refuses
		// (the proxy would not even start)
		return question.Outcome{Answer: question.Deny, Asked: audit.AskedUnattended, Detail: "the ask channel is misconfigured: " + err.Error()}
	}
	ctx, cancel := context.WithDeadline(ctx, a.by)
	defer cancel()
	return ch.Ask(ctx, r)
}

// askMargin is the time an ask leaves before the hook's deadline: the
// record of its answer and the agent's answer are written in it.
const askMargin = 3 * time.Second

// askDeadline is when an ask on the channel must have ended.
func askDeadline(o Options) time.Time {
	if !o.askBy.IsZero() {
		return o.askBy
	}
	d, _ := deadlineFor(o.Agent, o.Getenv)
	return time.Now().Add(d - min(askMargin, d/4))
}
