"""Full-information (decision-theoretic online learning) algorithms: the learner sees whole rows."""
