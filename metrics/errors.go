package metrics

import "errors"

func errorIs(err, target error) bool { return errors.Is(err, target) }
