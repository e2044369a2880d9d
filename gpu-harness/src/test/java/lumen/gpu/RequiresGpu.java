package lumen.gpu;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Runs a test class only where the JCuda backend can run; elsewhere every test is skipped with the reason. */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RequiresGpu.Condition.class)
@interface RequiresGpu {

    final class Condition implements ExecutionCondition {
        private static boolean told;

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return CudaBackend.probe().map(r -> {
                synchronized (Condition.class) {
                    if (!told) {
                        System.out.println("GPU tests skipped: the JCuda backend is unavailable: " + r);
                        told = true;
                    }
                }
                return ConditionEvaluationResult.disabled("JCuda backend unavailable: " + r);
            }).orElse(ConditionEvaluationResult.enabled("a CUDA device is present"));
        }
    }
}
